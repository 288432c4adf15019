/* guest_mem.h: a stopped vCPU's view: its registers and guest-linear memory. */
#ifndef CSAN_VMM_GUEST_MEM_H
#define CSAN_VMM_GUEST_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "csan/abi.h"

struct vcpu;

/* Registers beyond struct csan_regs that only KVM can tell. */
struct guest_cregs {
	uint64_t cr0, cr4, efer;
};

/*
 * guest_get_regs - @vcpu's registers as KVM holds them, in the report
 * layout; @c (may be NULL) gets CR0, CR4 and EFER.  Call on the vCPU's
 * own thread while it is out of KVM_RUN.  Returns 0 or -errno.
 */
int guest_get_regs(struct vcpu *vcpu, struct csan_regs *r, struct guest_cregs *c);

/*
 * guest_read_linear - copy up to @len bytes at guest-linear @linear into
 * @buf, page by page through @vcpu's paging (KVM_TRANSLATE, on its own
 * thread).  Returns the bytes copied: fewer than @len where an address
 * does not translate or lies outside guest RAM.
 */
size_t guest_read_linear(struct vcpu *vcpu, uint64_t linear, void *buf, size_t len);

/*
 * guest_write_linear - the same the other way: @len bytes from @buf to
 * guest-linear @linear (the guest's stack, for instructions the VMM does
 * in its place).  Returns the bytes written.
 */
size_t guest_write_linear(struct vcpu *vcpu, uint64_t linear, const void *buf, size_t len);

/*
 * guest_read_code - copy up to @len bytes of code at @rip (through CS in
 * modes where its base counts).  Returns the bytes copied.
 */
size_t guest_read_code(struct vcpu *vcpu, uint64_t rip, uint8_t *buf, size_t len);

/*
 * guest_unwind_read - the unwinder's memory reader (unwind_read_fn) with
 * the vCPU as @ctx: 8 bytes of guest-virtual memory.  It runs with the
 * symbolizer's lock held, so it calls nothing in src/watch.
 */
bool guest_unwind_read(void *ctx, uint64_t gva, uint64_t *val);

#endif /* CSAN_VMM_GUEST_MEM_H */
