/* hypercall.c: the guest's calls to the VMM through I/O ports (abi.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmm/base/log.h"
#include "vmm/dev/hypercall.h"
#include "vmm/kvm/vm.h"

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

/* The hypercall ports of one VM: a handler per number, with its owner's name. */
struct hc_table {
	const char *owner[CSAN_HC_MAX];
	hc_handler_fn fn[CSAN_HC_MAX];
	void *ctx[CSAN_HC_MAX];
};

int hc_register(struct vm *vm, unsigned nr, const char *owner, hc_handler_fn fn, void *ctx,
		char *why, size_t whylen)
{
	struct hc_table *t = vm->hc;

	if (!t || nr == 0 || nr >= CSAN_HC_MAX || !fn) {
		why_set(why, whylen, "internal error: %s cannot serve hypercall %u%s", owner, nr,
			t ? "" : " (no hypercall ports)");
		return -EINVAL;
	}
	if (t->fn[nr]) {
		why_set(why, whylen,
			"internal error: hypercall %u %s has two handlers: %s's and %s's", nr,
			hc_name(nr), t->owner[nr], owner);
		return -EBUSY;
	}
	t->fn[nr] = fn;
	t->owner[nr] = owner;
	t->ctx[nr] = ctx;
	return 0;
}

void *hc_context(const struct vm *vm, unsigned nr)
{
	return vm->hc && nr < CSAN_HC_MAX ? vm->hc->ctx[nr] : NULL;
}

int hc_dispatch(struct vcpu *vcpu, unsigned nr, uint32_t arg_gpa)
{
	if (nr == 0 || nr >= CSAN_HC_MAX)
		return hc_fail(vcpu, nr, "number",
			       "not a hypercall of guest ABI %d (those are 1 to %d)",
			       CSAN_ABI_VERSION, CSAN_HC_MAX - 1);
	if (!vcpu->vm->hc || !vcpu->vm->hc->fn[nr])
		return hc_fail(vcpu, nr, "number", "this csan-vmm build does not serve it");
	return vcpu->vm->hc->fn[nr](vcpu, arg_gpa);
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

/* hc_handle_io as a pio_handler (pio.h); @ctx is unused. */
static int hc_pio(struct vcpu *vcpu, void *ctx, uint16_t port, bool is_write, uint8_t *data,
		  unsigned size, unsigned count)
{
	(void)ctx;
	return hc_handle_io(vcpu, port, is_write, data, size, count);
}

int hc_attach_ports(struct vm *vm, char *why, size_t whylen)
{
	struct hc_table *t = vm_zalloc(vm, sizeof(*t), "hypercalls", why, whylen);

	if (!t)
		return -ENOMEM;
	vm->hc = t;
	return pio_register(&vm->pio, CSAN_HC_PORT_BASE, CSAN_HC_PORT_COUNT, "hypercall ports",
			    hc_pio, NULL, why, whylen);
}
