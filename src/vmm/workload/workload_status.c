/* workload_status.c: the port the guest's init reports CMD's exit status on. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "vmm/base/log.h"
#include "vmm/kvm/bus.h"
#include "vmm/kvm/hooks.h"
#include "vmm/kvm/vm.h"
#include "vmm/workload/workload.h"

struct wl_status {
	int status; /* atomic: -1 until the init reports */
};

/*
 * One 4-byte OUT of CSAN_WL_MAGIC | status.  Anything else (a probe of
 * the port, a read, a wrong magic) is ignored, and only the first report
 * counts: the init reports once, and a program in the guest writing the
 * port later should not change what the run says.
 */
static int status_io(struct vcpu *vcpu, void *ctx, uint16_t port, bool is_write, uint8_t *data,
		     unsigned size, unsigned count)
{
	struct wl_status *s = ctx;
	uint32_t v;
	int none = -1;

	(void)vcpu;
	if (!is_write) {
		memset(data, 0xff, (size_t)size * count);
		return VCPU_RESUME;
	}
	if (port != CSAN_WL_PORT || size != 4 || count != 1)
		return VCPU_RESUME;
	memcpy(&v, data, sizeof(v));
	if ((v & CSAN_WL_MAGIC_MASK) != CSAN_WL_MAGIC || (v & ~CSAN_WL_MAGIC_MASK) > CSAN_WL_STATUS_MAX)
		return VCPU_RESUME;
	__atomic_compare_exchange_n(&s->status, &none, (int)(v & ~CSAN_WL_MAGIC_MASK), false,
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	return VCPU_RESUME;
}

int workload_attach(struct vm *vm, char *why, size_t whylen)
{
	struct wl_status *s = vm_zalloc(vm, sizeof(*s), "workload", why, whylen);

	if (!s)
		return -ENOMEM;
	s->status = -1;
	return pio_register(&vm->pio, CSAN_WL_PORT, CSAN_WL_PORT_COUNT, "workload status",
			    status_io, s, why, whylen);
}

/* The state hangs off the port's range: the core needs no field for it. */
int workload_exit_status(const struct vm *vm)
{
	const struct bus_range *r = vm ? pio_find(&vm->pio, CSAN_WL_PORT) : NULL;
	const struct wl_status *s;

	if (!r || r->fn.pio != status_io)
		return -1;
	s = r->ctx;
	return __atomic_load_n(&s->status, __ATOMIC_SEQ_CST);
}
