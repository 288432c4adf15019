/* guest_path.c: find what ships with csan-vmm (guest, harness) in a build tree or install. */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vmm/run/guest_path.h"

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

/*
 * A part shipped with csan-vmm: BUILD_DIR/NAME below the directory of
 * /proc/self/exe first, so that ./csan-vmm in a fresh build uses what was
 * built beside it, not an older installed copy; then pkglibexecdir.
 */
static char *bundled_part(const char *build_dir, const char *name, const char *what,
			  const char *fix, char *why, size_t whylen)
{
	char exe[PATH_MAX], rel[PATH_MAX];
	ssize_t n;
	char *p;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			snprintf(rel, sizeof(rel), "%s/%s", build_dir, name);
			p = if_readable(exe, rel);
			if (p)
				return p;
		}
	}
	p = if_readable(CSAN_PKGLIBEXECDIR, name);
	if (p)
		return p;
	snprintf(why, whylen,
		 "%s '%s' is neither in the build tree (%s/%s) nor installed in %s: %s", what, name,
		 n > 0 ? exe : "?", build_dir, CSAN_PKGLIBEXECDIR, fix);
	return NULL;
}

char *guest_path_bundled(char *why, size_t whylen)
{
	return bundled_part("src/guest", GUEST_BUNDLED_NAME, "the bundled guest",
			    "run 'make' (or 'make install'), or name a GUEST-ELF", why, whylen);
}

char *guest_path_harness(char *why, size_t whylen)
{
	return bundled_part("src/harness", HARNESS_NAME, "the emulated-host harness",
			    "run 'make' (or 'make install')", why, whylen);
}

char *guest_path_init(char *why, size_t whylen)
{
	return bundled_part("src/init", INIT_NAME, "csan-vmm's guest init for --run",
			    "run 'make' (or 'make install')", why, whylen);
}
