/* hooks.h: where the rooms above the core plug into a VM: exit handlers and run hooks. */
#ifndef CSAN_VMM_HOOKS_H
#define CSAN_VMM_HOOKS_H

#include <stddef.h>
#include <stdint.h>

struct vm;
struct vcpu;

/*
 * What an exit handler tells the run loop.  VCPU_DEFAULT: the handler
 * declined this exit (a guest profile that ends the run on some system
 * events but not others), so the core does what it does with an exit
 * nobody took: it ends the run as a fault.
 */
enum { VCPU_DEFAULT = -1, VCPU_RESUME = 0, VCPU_STOP = 1 };

/*
 * A handler for one KVM exit reason the core does not own (KVM_EXIT_DEBUG,
 * KVM_EXIT_SHUTDOWN, KVM_EXIT_SYSTEM_EVENT).  Runs on @vcpu's thread.
 */
typedef int (*vm_exit_fn)(struct vcpu *vcpu, void *ctx);

/*
 * The points of a run where hooks are called.  RUN_START, RUN_ENDING,
 * VCPUS_STOPPED and RUN_END come once a run, in that order; TICK,
 * BEFORE_EXIT and BEFORE_FAULT between RUN_START and RUN_ENDING; DESTROY
 * once, at vm_destroy.  Each hook gets the VM, the vCPU for the per-exit
 * points (NULL for the others) and the context it registered; only
 * VM_HOOK_TICK's return value is read.
 */
enum vm_hook_point {
	VM_HOOK_BEFORE_EXIT,   /* a vCPU exit, before it is handled (its thread) */
	VM_HOOK_BEFORE_FAULT,  /* an exit that ends the run as a fault, before the report */
	VM_HOOK_RUN_START,     /* vm_run, before the vCPU threads start */
	VM_HOOK_TICK,	       /* the supervisor, now and then: ms until the next call, or -1 */
	VM_HOOK_RUN_ENDING,    /* the run's end is decided, vCPU threads not yet stopped */
	VM_HOOK_VCPUS_STOPPED, /* every vCPU thread joined: take what devices still hold */
	VM_HOOK_RUN_END,       /* the last of a run: flush what is buffered */
	VM_HOOK_DESTROY,       /* vm_destroy, before the core frees anything */
	VM_HOOK_POINTS
};

typedef int (*vm_hook_fn)(struct vm *vm, struct vcpu *vcpu, void *ctx);

#define VM_EXIT_HANDLERS_MAX 8
#define VM_HOOKS_PER_POINT   16

struct vm_exit_handler {
	uint32_t reason; /* KVM_EXIT_* */
	const char *owner;
	vm_exit_fn fn;
	void *ctx;
};

struct vm_hook {
	const char *owner;
	vm_hook_fn fn;
	void *ctx;
};

/* Registered at set-up, before vm_run; read-only while vCPUs run. */
struct vm_hooks {
	unsigned nexit;
	struct vm_exit_handler exit[VM_EXIT_HANDLERS_MAX];
	unsigned n[VM_HOOK_POINTS];
	struct vm_hook at[VM_HOOK_POINTS][VM_HOOKS_PER_POINT];
};

/*
 * vm_handle_exit_reason - give KVM exit @reason of @vm to @fn (with @ctx),
 * on behalf of @owner (a short name for messages: "hwwatch", "linux").
 * Returns 0; -EBUSY when another owner has @reason (both are named in
 * @why), -ENOSPC when the table is full, -EINVAL for a reason the core
 * handles itself (I/O, MMIO, interrupts, HLT) or a NULL @fn.
 */
int vm_handle_exit_reason(struct vm *vm, uint32_t reason, const char *owner, vm_exit_fn fn,
			  void *ctx, char *why, size_t whylen);

/* vm_exit_handler_find - the handler registered for @reason, or NULL. */
const struct vm_exit_handler *vm_exit_handler_find(const struct vm *vm, uint32_t reason);

/*
 * vm_hook_add - call @fn(vm, vcpu, @ctx) at @point, after the hooks
 * registered there before it.  Returns 0; -EBUSY when the same @fn and
 * @ctx are already registered at @point (the first owner is named in
 * @why), -ENOSPC when the point is full, -EINVAL for a bad @point.
 */
int vm_hook_add(struct vm *vm, enum vm_hook_point point, const char *owner, vm_hook_fn fn,
		void *ctx, char *why, size_t whylen);

/*
 * vm_hooks_call - run the hooks at @point, in registration order.  For
 * VM_HOOK_TICK returns the smallest non-negative answer (-1 when none);
 * for the other points, -1.
 */
int vm_hooks_call(struct vm *vm, enum vm_hook_point point, struct vcpu *vcpu);

/*
 * vm_zalloc - @size zeroed bytes that live as long as @vm: freed by a
 * VM_HOOK_DESTROY hook in @owner's name, for devices and hooks' state.
 * Returns NULL with a message in @why when out of memory or out of hooks.
 */
void *vm_zalloc(struct vm *vm, size_t size, const char *owner, char *why, size_t whylen);

#endif /* CSAN_VMM_HOOKS_H */
