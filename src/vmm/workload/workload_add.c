/* workload_add.c: --add's HOSTPATH[:GUESTPATH] and what can be checked before the boot. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vmm/workload/workload.h"

/*
 * @in as an absolute, normalised guest path into @out (at least
 * strlen(@in) + 2 bytes): components "." and empty ones dropped.
 * Returns -EINVAL on a ".." component: a GUESTPATH must stay inside the
 * archive, and the kernel's unpacker would follow it out of nothing.
 */
static int normalise(const char *in, char *out)
{
	const char *p = in;
	size_t o = 0;

	while (*p) {
		const char *end = strchrnul(p, '/');
		size_t len = (size_t)(end - p);

		if (len == 2 && !strncmp(p, "..", 2))
			return -EINVAL;
		if (len && !(len == 1 && *p == '.')) {
			out[o++] = '/';
			memcpy(out + o, p, len);
			o += len;
		}
		p = *end ? end + 1 : end;
	}
	if (!o)
		out[o++] = '/';
	out[o] = '\0';
	return 0;
}

/* The last name of @host, trailing slashes and "." left out, into @out. */
static int base_name(const char *host, char *out, size_t outlen)
{
	char *tmp = strdup(host), *slash;
	int rc = -EINVAL;

	if (!tmp)
		return -ENOMEM;
	for (;;) {
		size_t n = strlen(tmp);

		while (n > 1 && tmp[n - 1] == '/')
			tmp[--n] = '\0';
		slash = strrchr(tmp, '/');
		if (!strcmp(slash ? slash + 1 : tmp, ".") && slash)
			*slash = '\0'; /* "dir/." is dir */
		else
			break;
	}
	slash = strrchr(tmp, '/');
	slash = slash ? slash + 1 : tmp;
	if (*slash && strcmp(slash, ".") && strcmp(slash, "..")) {
		snprintf(out, outlen, "%s", slash);
		rc = 0;
	}
	free(tmp);
	return rc;
}

int workload_add_parse(const char *arg, char **host, char **guest, char *why, size_t whylen)
{
	const char *colon = strchr(arg, ':');
	char *h, *g = NULL, *name = NULL;
	int rc = -ENOMEM;

	*host = *guest = NULL;
	h = colon ? strndup(arg, (size_t)(colon - arg)) : strdup(arg);
	if (!h)
		goto fail;
	if (!h[0] || (colon && !colon[1])) {
		snprintf(why, whylen,
			 "--add=%s: give HOSTPATH or HOSTPATH:GUESTPATH (neither may be empty)",
			 arg);
		rc = -EINVAL;
		goto fail;
	}
	if (colon) {
		g = malloc(strlen(colon + 1) + 2);
		if (!g)
			goto fail;
		if (normalise(colon + 1, g)) {
			snprintf(why, whylen,
				 "--add=%s: GUESTPATH '%s' has a '..' and would leave the "
				 "guest's root; give a path without '..'",
				 arg, colon + 1);
			rc = -EINVAL;
			goto fail;
		}
	} else {
		name = malloc(strlen(h) + 2);
		if (!name)
			goto fail;
		g = name; /* freed on failure from here on */
		rc = base_name(h, name + 1, strlen(h) + 1);
		if (rc == -EINVAL)
			snprintf(why, whylen,
				 "--add=%s: HOSTPATH has no name to put it under in the guest; "
				 "give one: --add=%s:/GUESTPATH",
				 arg, arg);
		if (rc)
			goto fail;
		name[0] = '/';
	}
	*host = h;
	*guest = g;
	return 0;
fail:
	if (rc == -ENOMEM)
		snprintf(why, whylen, "--add: out of memory");
	free(h);
	free(g);
	return rc;
}

int workload_check(const struct workload_spec *w, char *why, size_t whylen)
{
	struct stat st;
	char *h, *g;
	size_t i;
	int rc;

	if (w->nadds && !w->run) {
		snprintf(why, whylen,
			 "--add: the files are for --run's command; add --run=CMD "
			 "(--run=sh for a shell on the console)");
		return -EINVAL;
	}
	if (w->prebuilt && !w->initrd) {
		snprintf(why, whylen, "--workload-in-initrd: only with --initrd=FILE");
		return -EINVAL;
	}
	if (w->run && !w->run[0]) {
		snprintf(why, whylen, "--run: give a command, e.g. --run='uname -a'");
		return -EINVAL;
	}
	for (i = 0; i < w->nadds; i++) {
		rc = workload_add_parse(w->adds[i], &h, &g, why, whylen);
		if (rc)
			return rc;
		rc = stat(h, &st) ? -errno : 0;
		if (rc)
			snprintf(why, whylen, "--add=%s: %s: %s; give an existing file or directory",
				 w->adds[i], h, strerror(-rc));
		free(h);
		free(g);
		if (rc)
			return rc;
	}
	if (w->initrd) {
		if (stat(w->initrd, &st) || access(w->initrd, R_OK)) {
			rc = -errno;
			snprintf(why, whylen, "--initrd=%s: %s; give a cpio archive (compressed or not)",
				 w->initrd, strerror(errno));
			return rc;
		}
		if (!S_ISREG(st.st_mode)) {
			snprintf(why, whylen, "--initrd=%s: not a regular file; give a cpio archive",
				 w->initrd);
			return -EINVAL;
		}
	}
	return 0;
}
