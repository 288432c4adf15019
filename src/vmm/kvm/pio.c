/* pio.c: the I/O port bus: each device owns a port range with its handler. */
#include <errno.h>
#include <stddef.h>

#include "vmm/base/log.h"
#include "vmm/kvm/pio.h"

int pio_register(struct pio_bus *bus, uint16_t base, uint32_t len, const char *name, pio_handler fn,
		 void *ctx, char *why, size_t whylen)
{
	unsigned i;

	if (!len || (uint32_t)base + len > 0x10000u || !fn) {
		why_set(why, whylen, "internal error: the %s's ports %#x+%u are not a port range",
			name, base, len);
		return -EINVAL;
	}
	for (i = 0; i < bus->n; i++) {
		const struct pio_range *r = &bus->r[i];

		if (base < r->base + r->len && r->base < base + len) {
			why_set(why, whylen,
				"internal error: ports %#x+%u of the %s overlap ports %#x+%u of "
				"the %s",
				base, len, name, r->base, r->len, r->name);
			return -EBUSY;
		}
	}
	if (bus->n == PIO_MAX_RANGES) {
		why_set(why, whylen, "internal error: no room on the port bus for the %s", name);
		return -ENOSPC;
	}
	bus->r[bus->n++] = (struct pio_range){ base, len, name, fn, ctx };
	return 0;
}

const struct pio_range *pio_find(const struct pio_bus *bus, uint16_t port)
{
	unsigned i;

	/* A handful of ranges: a linear scan beats anything cleverer. */
	for (i = 0; i < bus->n; i++)
		if (port >= bus->r[i].base && (uint32_t)(port - bus->r[i].base) < bus->r[i].len)
			return &bus->r[i];
	return NULL;
}
