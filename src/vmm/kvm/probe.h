/* probe.h: what this host's KVM can do for csan-vmm, measured with a tiny guest. */
#ifndef CSAN_VMM_PROBE_H
#define CSAN_VMM_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * probe_data_watchpoints - whether data watchpoints programmed by the host
 * (KVM_SET_GUEST_DEBUG with KVM_GUESTDBG_USE_HW_BP) reach guests here:
 * a throw-away one-vCPU VM runs three real-mode instructions, one of them
 * a 4-byte store under a write watchpoint, and the store must end in a
 * KVM_EXIT_DEBUG with DR6.B0 and the next instruction's address.  Quiet,
 * a few milliseconds, no effect on other VMs; callable from any thread
 * (it uses only file descriptors of its own).  Made once per process:
 * later calls give the first answer (a negative errno is not kept).
 * Returns 1 when they fire; 0 when they do not, with what happened and
 * what to do in @why (@whylen bytes); a negative errno when the check
 * could not run (/dev/kvm missing or not ours, an ioctl failed), with the
 * reason in @why.
 */
int probe_data_watchpoints(char *why, size_t whylen);

/*
 * probe_kvm_is_pvm - whether this host's KVM is PVM (kvm_pvm: guest kernel
 * code emulated instruction by instruction, some instructions not at all).
 */
bool probe_kvm_is_pvm(void);

/*
 * probe_report - csan-vmm --probe: print on @out one line per thing this
 * host's KVM can do (API version, vCPU limits, debug capabilities, and
 * live checks of data watchpoints, execution breakpoints and single-step),
 * then the verdict line "hardware-watchpoint mode: available" or
 * "... unavailable (reason; what to do)".  Errors that stop the probe go
 * to @err.  Returns the exit status: 0 when hardware-watchpoint mode is
 * available, 2 when it is not or /dev/kvm cannot be used.
 */
int probe_report(FILE *out, FILE *err);

#endif /* CSAN_VMM_PROBE_H */
