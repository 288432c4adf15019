/* sandbox.h: the system-call allow-list each vCPU thread puts itself under. */
#ifndef CSAN_VMM_SANDBOX_H
#define CSAN_VMM_SANDBOX_H

#include <stddef.h>

/*
 * sandbox_prepare - make the process ready for sandboxed threads: install
 * the SIGSYS handler that names a refused system call and ends the process
 * with status 2, and resolve system-call names for it in advance (the
 * handler cannot).  Call on the main thread before the first
 * sandbox_enter; calling it again is harmless.  Returns 0, or a negative
 * errno with a message in @why.
 */
int sandbox_prepare(char *why, size_t whylen);

/*
 * sandbox_enter - put the calling thread, and threads it creates later,
 * under the vCPU allow-list (sandbox.c says what it allows and why).
 * Other threads are untouched, and the filter cannot be removed.  Returns
 * 0, or a negative errno with a message in @why (the thread is then
 * unfiltered).
 */
int sandbox_enter(char *why, size_t whylen);

#endif /* CSAN_VMM_SANDBOX_H */
