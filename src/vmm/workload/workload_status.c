/* workload_status.c: the port the guest's init reports CMD's exit status on. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "vmm/base/log.h"
#include "vmm/kvm/bus.h"
#include "vmm/kvm/hooks.h"
#include "vmm/kvm/vm.h"
#include "vmm/workload/workload.h"

struct wl_status {
	int status; /* atomic: -1 until the init reports */
	/* The report byte by byte (/dev/port): what ports +0..+2 got so far. */
	pthread_mutex_t lock;
	uint8_t bytes[CSAN_WL_PORT_COUNT];
	unsigned have; /* bit i: port +i written since the last whole value */
};

/* Take @v as the report, if it is one; only the first counts. */
static void take(struct wl_status *s, uint32_t v)
{
	int none = -1;

	if ((v & CSAN_WL_MAGIC_MASK) != CSAN_WL_MAGIC || (v & ~CSAN_WL_MAGIC_MASK) > CSAN_WL_STATUS_MAX)
		return;
	__atomic_compare_exchange_n(&s->status, &none, (int)(v & ~CSAN_WL_MAGIC_MASK), false,
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

/* One byte of a report written a port at a time; the last port completes it. */
static void take_byte(struct wl_status *s, unsigned i, uint8_t b)
{
	uint32_t v = 0;
	unsigned k;
	bool whole;

	pthread_mutex_lock(&s->lock);
	/* In rising order from the first port only: a stray byte starts nothing. */
	if (i == 0)
		s->have = 0;
	if (s->have == (1u << i) - 1) {
		s->bytes[i] = b;
		s->have |= 1u << i;
	} else {
		s->have = 0;
	}
	whole = i == CSAN_WL_PORT_COUNT - 1 && s->have == (1u << CSAN_WL_PORT_COUNT) - 1;
	if (i == CSAN_WL_PORT_COUNT - 1)
		s->have = 0;
	for (k = 0; whole && k < CSAN_WL_PORT_COUNT; k++)
		v |= (uint32_t)s->bytes[k] << (8 * k);
	pthread_mutex_unlock(&s->lock);
	if (whole)
		take(s, v);
}

/*
 * A 4-byte OUT of the whole value at the first port, or its bytes one
 * port at a time (workload_abi.h).  Anything else (a read, a probe, a
 * wrong magic) is ignored, and only the first report counts: the init
 * reports once, and a program in the guest writing the ports later
 * should not change what the run says.
 */
static int status_io(struct vcpu *vcpu, void *ctx, uint16_t port, bool is_write, uint8_t *data,
		     unsigned size, unsigned count)
{
	struct wl_status *s = ctx;
	unsigned i = (unsigned)(port - CSAN_WL_PORT);
	uint32_t v;

	(void)vcpu;
	if (!is_write) {
		memset(data, 0xff, (size_t)size * count);
		return VCPU_RESUME;
	}
	if (count != 1)
		return VCPU_RESUME;
	if (size == 4 && i == 0) {
		memcpy(&v, data, sizeof(v));
		take(s, v);
	} else if (size == 1 && i < CSAN_WL_PORT_COUNT) {
		take_byte(s, i, data[0]);
	}
	return VCPU_RESUME;
}

int workload_attach(struct vm *vm, char *why, size_t whylen)
{
	struct wl_status *s = vm_zalloc(vm, sizeof(*s), "workload", why, whylen);

	if (!s)
		return -ENOMEM;
	s->status = -1;
	pthread_mutex_init(&s->lock, NULL);
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
