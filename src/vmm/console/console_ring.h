/* console_ring.h: the UART's transmit register through KVM's coalesced PIO ring. */
#ifndef CSAN_VMM_CONSOLE_RING_H
#define CSAN_VMM_CONSOLE_RING_H

#include <stddef.h>

struct vm;

/*
 * console_ring_setup - let KVM queue the guest's writes to the UART's
 * transmit register in its coalesced PIO ring instead of exiting for each
 * byte; the next exit of any vCPU drains them (a VM_HOOK_BEFORE_EXIT hook,
 * so a register access that exits sees every byte written before it), and
 * so does the end of the run.  With
 * Linux's FIFO console writes that is one exit per 16 console bytes
 * instead of 17: under nested KVM each exit costs about as much as a
 * byte's worth of a KCSAN report's 600 ms test window.  All UART output
 * then forms one stream (serial->one_stream), which Linux's console lock
 * makes true anyway.  A KVM without KVM_CAP_COALESCED_PIO keeps the exits.
 * Call before the vCPUs run.  Returns 0, or a negative errno with the
 * failing ioctl in @why.
 */
int console_ring_setup(struct vm *vm, char *why, size_t whylen);

#endif /* CSAN_VMM_CONSOLE_RING_H */
