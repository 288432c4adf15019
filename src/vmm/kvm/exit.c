/* exit.c: the exit dispatcher: where each KVM exit of a vCPU goes. */
#include <string.h>

#include <linux/kvm.h>

#include "vmm/kvm/exit.h"
#include "vmm/kvm/bus.h"
#include "vmm/kvm/fault.h"
#include "vmm/kvm/vm.h"

/* I/O ports nobody models: reads float high, writes vanish, as on a PC. */
static int handle_io(struct vcpu *vcpu)
{
	struct kvm_run *run = vcpu->run;
	uint8_t *data = (uint8_t *)run + run->io.data_offset;
	bool is_write = run->io.direction == KVM_EXIT_IO_OUT;
	uint16_t port = run->io.port;
	const struct bus_range *r = pio_find(&vcpu->vm->pio, port);

	__atomic_store_n(&vcpu->doing_port, port, __ATOMIC_RELAXED);
	vcpu_doing(vcpu, "handling an I/O exit on port");
	if (r)
		return r->fn.pio(vcpu, r->ctx, port, is_write, data, run->io.size, run->io.count);
	if (!is_write)
		memset(data, 0xff, (size_t)run->io.size * run->io.count);
	return VCPU_RESUME;
}

/*
 * MMIO outside RAM and the in-kernel APICs: the device owning the whole
 * access, or else reads as zero and writes ignored.
 */
static int handle_mmio(struct vcpu *vcpu)
{
	struct kvm_run *run = vcpu->run;
	uint64_t addr = run->mmio.phys_addr;
	const struct bus_range *r = bus_find(&vcpu->vm->mmio, addr);

	vcpu_doing(vcpu, "handling an MMIO exit");
	/* An access that runs past the device's end is nobody's. */
	if (r && run->mmio.len <= sizeof(run->mmio.data) &&
	    r->len - (addr - r->base) >= run->mmio.len)
		return r->fn.mmio(vcpu, r->ctx, addr, run->mmio.is_write, run->mmio.data,
				  run->mmio.len);
	if (!run->mmio.is_write)
		memset(run->mmio.data, 0, sizeof(run->mmio.data));
	return VCPU_RESUME;
}

/* An exit that ends the run as a guest failure: report it and stop. */
static int exit_fault(struct vcpu *vcpu)
{
	vm_hooks_call(vcpu->vm, VM_HOOK_BEFORE_FAULT, vcpu);
	fault_report_exit(vcpu);
	vm_end(vcpu->vm, VM_END_FAULT, 0, 0);
	return VCPU_STOP;
}

int vcpu_handle_exit(struct vcpu *vcpu)
{
	uint32_t reason = vcpu->run->exit_reason;
	const struct vm_exit_handler *h;
	int r;

	/* Bytes the guest wrote to the UART before this exit come first. */
	vcpu_doing(vcpu, "running the hooks before an exit");
	vm_hooks_call(vcpu->vm, VM_HOOK_BEFORE_EXIT, vcpu);
	vcpu_doing(vcpu, "handling an exit");
	switch (reason) {
	case KVM_EXIT_IO: return handle_io(vcpu);
	case KVM_EXIT_MMIO: return handle_mmio(vcpu);
	case KVM_EXIT_INTR: return VCPU_RESUME; /* a kick: the loop looks at its flags */
	case KVM_EXIT_HLT:
		/* Only without an in-kernel LAPIC; wake-ups are KVM's, so go back. */
		return VCPU_RESUME;
	default: break;
	}
	/*
	 * The rest belongs to whoever registered for it.  An exit nobody
	 * takes ends the run: a debug exit without the engine, a triple
	 * fault (KVM_EXIT_SHUTDOWN once fell through to the debug handler,
	 * which re-injected #DB forever: tests/vm/triple-fault.sh), a failed
	 * entry, an internal error, a reason this csan-vmm does not know.
	 */
	h = vm_exit_handler_find(vcpu->vm, reason);
	if (h) {
		r = h->fn(vcpu, h->ctx);
		if (r != VCPU_DEFAULT)
			return r;
	}
	return exit_fault(vcpu);
}
