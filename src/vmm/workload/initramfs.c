/* initramfs.c: the initramfs a --run boots with: the user's --initrd, then csan-vmm's archive. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "vmm/workload/cpio_writer.h"
#include "vmm/workload/elf_deps.h"
#include "vmm/workload/workload.h"

/* The kernel looks for the next archive's header at 4-byte offsets only. */
#define INITRD_ALIGN 4

/* The mount points the init uses, and a console for the kernel to open before it runs. */
static const struct {
	const char *path;
	mode_t mode;
} base_dirs[] = {
	{ "/dev", 0755 }, { "/proc", 0555 },	{ "/sys", 0555 },
	{ "/tmp", 01777 }, { CSAN_WL_DIR, 0755 }, { CSAN_WL_BIN, 0755 },
};

/* The whole of @path, malloc'd, in @data/@len; -errno with @why. */
static int read_file(const char *opt, const char *path, uint8_t **data, size_t *len, char *why,
		     size_t whylen)
{
	struct stat st;
	uint8_t *buf = NULL;
	size_t got = 0;
	ssize_t n;
	int fd, rc = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		rc = -errno;
		goto out;
	}
	/* Room for the padding to the next archive, added by the caller. */
	buf = malloc((size_t)st.st_size + INITRD_ALIGN);
	if (!buf) {
		rc = -ENOMEM;
		goto out;
	}
	while (got < (size_t)st.st_size && (n = read(fd, buf + got, (size_t)st.st_size - got)) > 0)
		got += (size_t)n;
	if (got < (size_t)st.st_size)
		rc = n < 0 ? -errno : -EIO;
out:
	if (rc) {
		snprintf(why, whylen, "%s=%s: %s", opt, path,
			 rc == -EIO ? "the file shrank while it was read" : strerror(-rc));
		free(buf);
	} else {
		*data = buf;
		*len = got;
	}
	if (fd >= 0)
		close(fd);
	return rc;
}

/* The context of the tree walk's callback: dependencies of what is added. */
struct walk {
	struct elf_deps deps;
};

static int on_added_file(void *ctx, const char *hpath, const char *gpath, char *why, size_t whylen)
{
	struct walk *w = ctx;

	(void)gpath;
	return elf_deps_collect(&w->deps, hpath, why, whylen);
}

/* csan-vmm's own files: mount points, console, busybox, the init, CMD. */
static int add_base(struct cpio *c, struct walk *w, const struct workload_spec *spec,
		    const struct workload_files *f, char *why, size_t whylen)
{
	size_t i;
	int rc = 0;

	for (i = 0; !rc && i < sizeof(base_dirs) / sizeof(base_dirs[0]); i++)
		rc = cpio_dir(c, base_dirs[i].path, base_dirs[i].mode, why, whylen);
	if (!rc)
		rc = cpio_node(c, "/dev/console", S_IFCHR | 0600, makedev(5, 1), why, whylen);
	if (!rc && access(f->busybox, R_OK)) {
		snprintf(why, whylen,
			 "--run: %s: %s; install Debian's busybox-static (apt-get install "
			 "busybox-static)",
			 f->busybox, strerror(errno));
		rc = -ENOENT;
	}
	if (!rc)
		rc = cpio_host_file(c, f->busybox, CSAN_WL_BUSYBOX, why, whylen);
	if (!rc)
		rc = elf_deps_collect(&w->deps, f->busybox, why, whylen);
	if (!rc)
		rc = cpio_host_file(c, f->init, CSAN_WL_INIT, why, whylen);
	if (!rc)
		rc = cpio_bytes(c, CSAN_WL_CMD_FILE, 0644, spec->run, strlen(spec->run), why,
				whylen);
	return rc;
}

/* Each --add, then the libraries and interpreters they need that are not there yet. */
static int add_user(struct cpio *c, struct walk *w, const struct workload_spec *spec, char *why,
		    size_t whylen)
{
	char *h, *g, sub[512];
	size_t i;
	int rc = 0;

	for (i = 0; !rc && i < spec->nadds; i++) {
		rc = workload_add_parse(spec->adds[i], &h, &g, why, whylen);
		if (rc)
			break;
		rc = cpio_host_tree(c, h, g, on_added_file, w, sub, sizeof(sub));
		if (rc)
			snprintf(why, whylen, "--add=%s: %s", spec->adds[i], sub);
		free(h);
		free(g);
	}
	for (i = 0; !rc && i < w->deps.n; i++)
		if (!cpio_has(c, w->deps.v[i].guest))
			rc = cpio_host_file(c, w->deps.v[i].host, w->deps.v[i].guest, why, whylen);
	return rc;
}

/* csan-vmm's archive for --run, in @data/@len. */
static int build_ours(const struct workload_spec *spec, const struct workload_files *f,
		      uint8_t **data, size_t *len, char *why, size_t whylen)
{
	struct walk w = { 0 };
	struct cpio *c = cpio_new();
	int rc;

	if (!c) {
		snprintf(why, whylen, "the initramfs: out of memory");
		return -ENOMEM;
	}
	rc = add_base(c, &w, spec, f, why, whylen);
	if (!rc)
		rc = add_user(c, &w, spec, why, whylen);
	elf_deps_free(&w.deps);
	if (rc) {
		cpio_free(c);
		return rc;
	}
	return cpio_finish(c, data, len, why, whylen);
}

int workload_initrd_build(const struct workload_spec *spec, const struct workload_files *f,
			  uint8_t **data, size_t *len, char *why, size_t whylen)
{
	uint8_t *user = NULL, *ours = NULL, *all;
	size_t ulen = 0, olen = 0, pad;
	int rc;

	*data = NULL;
	*len = 0;
	if (spec->initrd) {
		rc = read_file("--initrd", spec->initrd, &user, &ulen, why, whylen);
		if (rc)
			return rc;
	}
	if (spec->run && !spec->prebuilt) {
		rc = build_ours(spec, f, &ours, &olen, why, whylen);
		if (rc) {
			free(user);
			return rc;
		}
	}
	if (!ours) {
		*data = user;
		*len = ulen;
		return 0;
	}
	if (!user) {
		*data = ours;
		*len = olen;
		return 0;
	}
	pad = (INITRD_ALIGN - ulen % INITRD_ALIGN) % INITRD_ALIGN;
	all = realloc(user, ulen + pad + olen);
	if (!all) {
		free(user);
		free(ours);
		snprintf(why, whylen, "the initramfs: out of memory");
		return -ENOMEM;
	}
	memset(all + ulen, 0, pad);
	memcpy(all + ulen + pad, ours, olen);
	free(ours);
	*data = all;
	*len = ulen + pad + olen;
	return 0;
}
