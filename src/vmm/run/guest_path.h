/* guest_path.h: find the parts shipped with csan-vmm: bundled guest, harness. */
#ifndef CSAN_VMM_GUEST_PATH_H
#define CSAN_VMM_GUEST_PATH_H

#include <stddef.h>

#define GUEST_BUNDLED_NAME "csan-guest"
#define HARNESS_NAME	   "emuhost"
#define INIT_NAME	   "csan-vmm-init"

/*
 * guest_path_bundled - locate the bundled guest: next to the binary in a
 * build tree (src/guest/csan-guest below the directory of
 * /proc/self/exe), else in the installed pkglibexecdir.
 * Returns a malloc'd path, or NULL with a message in @why naming the
 * places searched.
 */
char *guest_path_bundled(char *why, size_t whylen);

/*
 * guest_path_harness - locate the emulated-host harness (src/harness/emuhost
 * in a build tree, else pkglibexecdir/emuhost), as guest_path_bundled does.
 */
char *guest_path_harness(char *why, size_t whylen);

/*
 * guest_path_init - the guest init for --run (src/init), found as the
 * harness is.  Returns a malloc'd path, or NULL with @why set.
 */
char *guest_path_init(char *why, size_t whylen);

#endif /* CSAN_VMM_GUEST_PATH_H */
