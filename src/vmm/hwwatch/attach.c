/* attach.c: the debug-register engine joins a VM: its state, its debug exits. */
#include <errno.h>

#include <linux/kvm.h>

#include "vmm/base/log.h"
#include "vmm/hwwatch/engine.h"
#include "vmm/hwwatch/hw_watch.h"
#include "vmm/kvm/vm.h"

static int debug_exit(struct vcpu *vcpu, void *ctx)
{
	(void)ctx;
	return hw_watch_debug_exit(vcpu);
}

static int free_engine(struct vm *vm, struct vcpu *vcpu, void *ctx)
{
	(void)vcpu;
	(void)ctx;
	hw_engine_free(vm->hw);
	vm->hw = NULL;
	return 0;
}

int hw_watch_attach(struct vm *vm, char *why, size_t whylen)
{
	int r;

	/*
	 * In soft mode too: a debug exit the guest's own breakpoints cause
	 * goes back to it as the #DB it would have seen without us.
	 */
	vm->hw = hw_engine_new(vm->ncpus);
	if (!vm->hw) {
		why_set(why, whylen, "out of memory");
		return -ENOMEM;
	}
	r = vm_hook_add(vm, VM_HOOK_DESTROY, "hwwatch", free_engine, NULL, why, whylen);
	if (r) {
		hw_engine_free(vm->hw);
		vm->hw = NULL;
		return r;
	}
	return vm_handle_exit_reason(vm, KVM_EXIT_DEBUG, "hwwatch", debug_exit, NULL, why, whylen);
}
