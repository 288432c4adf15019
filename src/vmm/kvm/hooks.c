/* hooks.c: where the rooms above the core plug into a VM: exit handlers and run hooks. */
#include <errno.h>
#include <stdlib.h>
#include <linux/kvm.h>

#include "vmm/base/log.h"
#include "vmm/kvm/hooks.h"
#include "vmm/kvm/vm.h"

/* The exits the dispatcher (exit.c) owns: nobody may take them over. */
static bool core_owns_reason(uint32_t reason)
{
	switch (reason) {
	case KVM_EXIT_IO:
	case KVM_EXIT_MMIO:
	case KVM_EXIT_INTR:
	case KVM_EXIT_HLT: return true;
	default: return false;
	}
}

const struct vm_exit_handler *vm_exit_handler_find(const struct vm *vm, uint32_t reason)
{
	unsigned i;

	for (i = 0; i < vm->hooks.nexit; i++)
		if (vm->hooks.exit[i].reason == reason)
			return &vm->hooks.exit[i];
	return NULL;
}

int vm_handle_exit_reason(struct vm *vm, uint32_t reason, const char *owner, vm_exit_fn fn,
			  void *ctx, char *why, size_t whylen)
{
	const struct vm_exit_handler *old = vm_exit_handler_find(vm, reason);
	struct vm_hooks *h = &vm->hooks;

	if (!fn || core_owns_reason(reason)) {
		why_set(why, whylen, "internal error: %s cannot handle KVM exit reason %u", owner,
			reason);
		return -EINVAL;
	}
	if (old) {
		why_set(why, whylen,
			"internal error: KVM exit reason %u has two handlers: %s's and %s's",
			reason, old->owner, owner);
		return -EBUSY;
	}
	if (h->nexit == VM_EXIT_HANDLERS_MAX) {
		why_set(why, whylen, "internal error: no room for %s's exit handler", owner);
		return -ENOSPC;
	}
	h->exit[h->nexit++] = (struct vm_exit_handler){ reason, owner, fn, ctx };
	return 0;
}

int vm_hook_add(struct vm *vm, enum vm_hook_point point, const char *owner, vm_hook_fn fn,
		void *ctx, char *why, size_t whylen)
{
	struct vm_hooks *h = &vm->hooks;
	unsigned i;

	if ((unsigned)point >= VM_HOOK_POINTS || !fn) {
		why_set(why, whylen, "internal error: %s's hook at point %d", owner, (int)point);
		return -EINVAL;
	}
	for (i = 0; i < h->n[point]; i++) {
		if (h->at[point][i].fn == fn && h->at[point][i].ctx == ctx) {
			why_set(why, whylen,
				"internal error: %s registered a hook that %s already has at point "
				"%d",
				owner, h->at[point][i].owner, (int)point);
			return -EBUSY;
		}
	}
	if (h->n[point] == VM_HOOKS_PER_POINT) {
		why_set(why, whylen, "internal error: no room for %s's hook at point %d", owner,
			(int)point);
		return -ENOSPC;
	}
	h->at[point][h->n[point]++] = (struct vm_hook){ owner, fn, ctx };
	return 0;
}

int vm_hooks_call(struct vm *vm, enum vm_hook_point point, struct vcpu *vcpu)
{
	const struct vm_hooks *h = &vm->hooks;
	int soonest = -1;
	unsigned i;

	for (i = 0; i < h->n[point]; i++) {
		int r = h->at[point][i].fn(vm, vcpu, h->at[point][i].ctx);

		if (point == VM_HOOK_TICK && r >= 0 && (soonest < 0 || r < soonest))
			soonest = r;
	}
	return soonest;
}

static int free_at_destroy(struct vm *vm, struct vcpu *vcpu, void *ctx)
{
	(void)vm;
	(void)vcpu;
	free(ctx);
	return 0;
}

void *vm_zalloc(struct vm *vm, size_t size, const char *owner, char *why, size_t whylen)
{
	void *p = calloc(1, size);

	if (!p) {
		why_set(why, whylen, "out of memory");
		return NULL;
	}
	if (vm_hook_add(vm, VM_HOOK_DESTROY, owner, free_at_destroy, p, why, whylen)) {
		free(p);
		return NULL;
	}
	return p;
}
