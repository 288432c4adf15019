/* guest_path.c: find the bundled guest kernel in a build tree or install. */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vmm/guest_path.h"

static char *if_readable(const char *dir, const char *rel)
{
	char *p;

	if (asprintf(&p, "%s/%s", dir, rel) < 0)
		return NULL;
	if (access(p, R_OK) == 0)
		return p;
	free(p);
	return NULL;
}

char *guest_path_bundled(char *why, size_t whylen)
{
	char exe[PATH_MAX];
	ssize_t n;
	char *p;

	/*
	 * The build tree comes first so that ./csan-vmm in a fresh build runs
	 * the guest built beside it, not an older installed one.
	 */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			p = if_readable(exe, "src/guest/" GUEST_BUNDLED_NAME);
			if (p)
				return p;
		}
	}
	p = if_readable(CSAN_PKGLIBEXECDIR, GUEST_BUNDLED_NAME);
	if (p)
		return p;
	snprintf(why, whylen,
		 "the bundled guest '%s' is neither in the build tree (%s/src/guest) "
		 "nor installed in %s: run 'make' (or 'make install'), or name a GUEST-ELF",
		 GUEST_BUNDLED_NAME, n > 0 ? exe : "?", CSAN_PKGLIBEXECDIR);
	return NULL;
}
