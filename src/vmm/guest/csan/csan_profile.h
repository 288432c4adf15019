/* csan_profile.h: the bundled csan guest's profile: its hypercalls, its result line. */
#ifndef CSAN_VMM_CSAN_PROFILE_H
#define CSAN_VMM_CSAN_PROFILE_H

#include <stddef.h>

struct vm;

/*
 * csan_hypercalls_attach - the hypercall ports of @vm with every call of
 * the csan ABI served (console, exit, fault, control block, reports,
 * hardware watches) and the state they keep (csan_state.h): for every
 * image with the csan ABI note, whichever profile runs it (--guest=linux
 * boots a csan guest as a plain PVH kernel, and its runtime still calls),
 * and for the fuzz targets.  Returns 0, or a negative errno with a message in @why.
 */
int csan_hypercalls_attach(struct vm *vm, char *why, size_t whylen);

#endif /* CSAN_VMM_CSAN_PROFILE_H */
