/* attach.c: the debug-register engine joins a VM: its state, its debug exits. */
#include <errno.h>
#include <sys/ioctl.h>

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
	int r, caps;

	/*
	 * In soft mode too: a debug exit the guest's own breakpoints cause
	 * goes back to it as the #DB it would have seen without us.
	 */
	vm->hw = hw_engine_new(vm->ncpus);
	if (!vm->hw) {
		why_set(why, whylen, "out of memory");
		return -ENOMEM;
	}
	/*
	 * A step past a code breakpoint (code_bp.c) takes no interrupt where
	 * KVM can hold them back: one taken mid-step carries the trap flag in
	 * its frame (hw_code_late_step).
	 */
	vm->hw->step_control = KVM_GUESTDBG_SINGLESTEP;
	caps = ioctl(vm->kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_SET_GUEST_DEBUG2);
	if (caps > 0 && (caps & KVM_GUESTDBG_BLOCKIRQ))
		vm->hw->step_control |= KVM_GUESTDBG_BLOCKIRQ;
	r = vm_hook_add(vm, VM_HOOK_DESTROY, "hwwatch", free_engine, NULL, why, whylen);
	if (r) {
		hw_engine_free(vm->hw);
		vm->hw = NULL;
		return r;
	}
	return vm_handle_exit_reason(vm, KVM_EXIT_DEBUG, "hwwatch", debug_exit, NULL, why, whylen);
}
