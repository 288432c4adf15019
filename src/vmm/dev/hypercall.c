/* hypercall.c: the guest's calls to the VMM through I/O ports (abi.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "vmm/base/log.h"
#include "vmm/kvm/fault.h"
#include "vmm/dev/hypercall.h"
#include "vmm/kvm/vm.h"

/* A panic message longer than this is cut: it is for a human to read. */
#define HC_FAULT_MESSAGE_MAX 4096

static const char *const hc_names[CSAN_HC_MAX] = {
	[CSAN_HC_PUTS] = "CSAN_HC_PUTS",	   [CSAN_HC_EXIT] = "CSAN_HC_EXIT",
	[CSAN_HC_FAULT] = "CSAN_HC_FAULT",	   [CSAN_HC_REPORT] = "CSAN_HC_REPORT",
	[CSAN_HC_ATTACH] = "CSAN_HC_ATTACH",	   [CSAN_HC_HW_ARM] = "CSAN_HC_HW_ARM",
	[CSAN_HC_HW_DISARM] = "CSAN_HC_HW_DISARM",
};

static const char *hc_name(unsigned nr)
{
	return nr < CSAN_HC_MAX && hc_names[nr] ? hc_names[nr] : "(unknown)";
}

/* A guest that passes garbage is broken: the run ends as a guest fault. */
int hc_fail(struct vcpu *vcpu, unsigned nr, const char *field, const char *fmt, ...)
{
	va_list ap;

	log_begin();
	fprintf(stderr, LOG_PREFIX "vCPU %u: bad hypercall %u %s: %s: ", vcpu->id, nr, hc_name(nr),
		field);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	log_end();
	vm_end(vcpu->vm, VM_END_FAULT, 0, 0);
	return VCPU_STOP;
}

int hc_read_args(struct vcpu *vcpu, unsigned nr, uint32_t gpa, void *dst, size_t size)
{
	const void *src;

	if (gpa % 8)
		return hc_fail(vcpu, nr, "argument", "struct at %#" PRIx32 " is not 8-byte aligned",
			       gpa);
	src = vm_gpa_to_hva(vcpu->vm, gpa, size);
	if (!src)
		return hc_fail(vcpu, nr, "argument",
			       "struct at %#" PRIx32 " (%zu bytes) is outside guest RAM (%#" PRIx64
			       " bytes)",
			       gpa, size, vcpu->vm->ram_size);
	memcpy(dst, src, size);
	return VCPU_RESUME;
}

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
	console_write(&vcpu->vm->serial, vcpu->id, data, a.len);
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
	console_flush_line(&vcpu->vm->serial, vcpu->id);
	fault_report_guest(vcpu, &a, msg, (size_t)len);
	vm_end(vcpu->vm, VM_END_FAULT, 0, 0);
	return VCPU_STOP;
}

static hc_handler_fn hc_table[CSAN_HC_MAX] = {
	[CSAN_HC_PUTS] = hc_puts,
	[CSAN_HC_EXIT] = hc_exit,
	[CSAN_HC_FAULT] = hc_fault,
};

int hc_register(unsigned nr, hc_handler_fn fn)
{
	if (nr == 0 || nr >= CSAN_HC_MAX)
		return -EINVAL;
	hc_table[nr] = fn;
	return 0;
}

int hc_dispatch(struct vcpu *vcpu, unsigned nr, uint32_t arg_gpa)
{
	if (nr == 0 || nr >= CSAN_HC_MAX)
		return hc_fail(vcpu, nr, "number",
			       "not a hypercall of guest ABI %d (those are 1 to %d)",
			       CSAN_ABI_VERSION, CSAN_HC_MAX - 1);
	if (!hc_table[nr])
		return hc_fail(vcpu, nr, "number", "this csan-vmm build does not serve it");
	return hc_table[nr](vcpu, arg_gpa);
}

int hc_handle_io(struct vcpu *vcpu, uint16_t port, bool is_write, const uint8_t *data,
		 unsigned size, unsigned count)
{
	unsigned nr = port - CSAN_HC_PORT_BASE;
	uint32_t gpa;

	if (!is_write || size != 4 || count != 1)
		return hc_fail(vcpu, nr, "transport",
			       "port %#x got a %u-byte %s%s; a hypercall is one outl of the "
			       "argument struct's address",
			       port, size, is_write ? "OUT" : "IN",
			       count > 1 ? " (string I/O)" : "");
	memcpy(&gpa, data, sizeof(gpa));
	return hc_dispatch(vcpu, nr, gpa);
}

int hc_pio(struct vcpu *vcpu, void *ctx, uint16_t port, bool is_write, uint8_t *data, unsigned size,
	   unsigned count)
{
	(void)ctx;
	return hc_handle_io(vcpu, port, is_write, data, size, count);
}
