/* guest_path.h: find the bundled guest kernel. */
#ifndef CSAN_VMM_GUEST_PATH_H
#define CSAN_VMM_GUEST_PATH_H

#include <stddef.h>

#define GUEST_BUNDLED_NAME "csan-guest"

/*
 * guest_path_bundled - locate the bundled guest: next to the binary in a
 * build tree (src/guest/csan-guest below the directory of
 * /proc/self/exe), else in the installed pkglibexecdir.
 * Returns a malloc'd path, or NULL with a message in @why naming the
 * places searched.
 */
char *guest_path_bundled(char *why, size_t whylen);

#endif /* CSAN_VMM_GUEST_PATH_H */
