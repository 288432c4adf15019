/* hypercall.h: the guest's calls to the VMM through I/O ports (abi.h). */
#ifndef CSAN_VMM_HYPERCALL_H
#define CSAN_VMM_HYPERCALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "csan/abi.h"

struct vcpu;
struct vm;

/*
 * hc_handle_io - a KVM_EXIT_IO on hypercall port @port from @vcpu: check
 * the transport (one 4-byte OUT of the argument address), then run the
 * call.  A malformed call is reported, naming the hypercall and the field,
 * and ends the run as a fault.  Returns VCPU_RESUME, or VCPU_STOP when the
 * run ends (CSAN_HC_EXIT, CSAN_HC_FAULT, a bad call).
 */
int hc_handle_io(struct vcpu *vcpu, uint16_t port, bool is_write, const uint8_t *data,
		 unsigned size, unsigned count);

/*
 * A hypercall handler: @arg_gpa is the guest-physical address of its
 * argument struct, unchecked.  Returns VCPU_RESUME, or VCPU_STOP when the
 * run ends (after vm_end()).
 */
typedef int (*hc_handler_fn)(struct vcpu *vcpu, uint32_t arg_gpa);

/*
 * hc_attach_ports - give @vm the hypercall ports (CSAN_HC_PORT_BASE,
 * CSAN_HC_PORT_COUNT of them) with an empty table; a guest profile that
 * speaks the csan ABI calls it, then registers its calls.  Returns 0, or
 * a negative errno with a message in @why.
 */
int hc_attach_ports(struct vm *vm, char *why, size_t whylen);

/*
 * hc_register - serve hypercall @nr (1 .. CSAN_HC_MAX-1) of @vm with @fn,
 * on behalf of @owner (a short name for messages), with @ctx for
 * hc_context (NULL: none).  Call before vm_run.
 * Returns 0; -EBUSY when @nr already has a handler (both owners are named
 * in @why); -EINVAL for a number outside the ABI, a NULL @fn, or a VM
 * without the hypercall ports.
 */
int hc_register(struct vm *vm, unsigned nr, const char *owner, hc_handler_fn fn, void *ctx,
		char *why, size_t whylen);

/*
 * hc_context - the context registered with hypercall @nr of @vm, or NULL
 * (none, or no hypercall ports): how the owner of a call finds its state
 * of this VM.
 */
void *hc_context(const struct vm *vm, unsigned nr);

/*
 * hc_read_args - copy hypercall @nr's argument struct (@size bytes at
 * @gpa) into @dst, after checking it is 8-byte aligned and inside guest
 * RAM.  Copying first means another vCPU cannot change a field between its
 * check and its use.  Returns VCPU_RESUME, or VCPU_STOP after reporting a
 * bad address with hc_fail().
 */
int hc_read_args(struct vcpu *vcpu, unsigned nr, uint32_t gpa, void *dst, size_t size);

/*
 * hc_fail - report a malformed call from @vcpu to hypercall @nr as
 * "bad hypercall NR NAME: FIELD: <printf text>" and end the run as a
 * guest fault.  Returns VCPU_STOP, for handlers to return.
 */
__attribute__((format(printf, 4, 5))) int hc_fail(struct vcpu *vcpu, unsigned nr, const char *field,
						  const char *fmt, ...);

/*
 * hc_dispatch - run hypercall @nr with its argument struct at guest
 * physical @arg_gpa on @vcpu's thread.  Returns as hc_handle_io.
 */
int hc_dispatch(struct vcpu *vcpu, unsigned nr, uint32_t arg_gpa);

#endif /* CSAN_VMM_HYPERCALL_H */
