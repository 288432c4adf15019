/* hc_basic.c: the csan guest's console, exit and fault hypercalls. */
#include <inttypes.h>
#include <string.h>

#include "vmm/dev/hypercall.h"
#include "vmm/dev/serial.h"
#include "vmm/guest/csan/hc_basic.h"
#include "vmm/kvm/fault.h"
#include "vmm/kvm/vm.h"

/* A panic message longer than this is cut: it is for a human to read. */
#define HC_FAULT_MESSAGE_MAX 4096

static int hc_puts(struct vcpu *vcpu, uint32_t gpa)
{
	struct csan_hc_puts a;
	const void *data;
	int r;

	r = hc_read_args(vcpu, CSAN_HC_PUTS, gpa, &a, sizeof(a));
	if (r)
		return r;
	data = vm_gpa_to_hva(vcpu->vm, a.data, a.len);
	if (!data)
		return hc_fail(vcpu, CSAN_HC_PUTS, "data",
			       "[%#" PRIx64 ", +%#" PRIx64 ") is outside guest RAM (%#" PRIx64
			       " bytes)",
			       a.data, a.len, vcpu->vm->ram_size);
	console_write(vcpu->vm->serial, vcpu->id, data, a.len);
	return VCPU_RESUME;
}

static int hc_exit(struct vcpu *vcpu, uint32_t gpa)
{
	struct csan_hc_exit a;
	int r;

	r = hc_read_args(vcpu, CSAN_HC_EXIT, gpa, &a, sizeof(a));
	if (r)
		return r;
	vm_end(vcpu->vm, VM_END_EXIT, a.status, 0);
	return VCPU_STOP;
}

static int hc_fault(struct vcpu *vcpu, uint32_t gpa)
{
	struct csan_hc_fault a;
	const char *msg = NULL;
	uint64_t len = 0;
	int r;

	r = hc_read_args(vcpu, CSAN_HC_FAULT, gpa, &a, sizeof(a));
	if (r)
		return r;
	if (a.vector >= 32 && a.vector != CSAN_FAULT_PANIC)
		return hc_fail(vcpu, CSAN_HC_FAULT, "vector",
			       "%" PRIu32 " is neither an exception (0-31) nor CSAN_FAULT_PANIC",
			       a.vector);
	if (a.message_len) {
		msg = vm_gpa_to_hva(vcpu->vm, a.message, a.message_len);
		if (!msg)
			return hc_fail(vcpu, CSAN_HC_FAULT, "message",
				       "[%#" PRIx64 ", +%#" PRIx64
				       ") is outside guest RAM (%#" PRIx64 " bytes)",
				       a.message, a.message_len, vcpu->vm->ram_size);
		len = a.message_len < HC_FAULT_MESSAGE_MAX ? a.message_len : HC_FAULT_MESSAGE_MAX;
	}
	/* This vCPU's last words belong before the report. */
	console_flush_line(vcpu->vm->serial, vcpu->id);
	fault_report_guest(vcpu, &a, msg, (size_t)len);
	vm_end(vcpu->vm, VM_END_FAULT, 0, 0);
	return VCPU_STOP;
}

int hc_basic_register(struct vm *vm, char *why, size_t whylen)
{
	int r = hc_register(vm, CSAN_HC_PUTS, "csan", hc_puts, NULL, why, whylen);

	if (!r)
		r = hc_register(vm, CSAN_HC_EXIT, "csan", hc_exit, NULL, why, whylen);
	if (!r)
		r = hc_register(vm, CSAN_HC_FAULT, "csan", hc_fault, NULL, why, whylen);
	return r;
}
