/* bus.c: the address ranges devices own, I/O ports and MMIO, each with its handler. */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>

#include "vmm/base/log.h"
#include "vmm/kvm/bus.h"

int bus_add(struct bus *bus, const char *space, uint64_t limit, const struct bus_range *r,
	    char *why, size_t whylen)
{
	unsigned i;

	/* Written so that no sum can wrap: base < limit, then len <= limit - base. */
	if (!r->len || r->base >= limit || r->len > limit - r->base || !r->fn.pio) {
		why_set(why, whylen,
			"internal error: the %s's %s %#" PRIx64 "+%" PRIu64 " are not a range",
			r->name, space, r->base, r->len);
		return -EINVAL;
	}
	for (i = 0; i < bus->n; i++) {
		const struct bus_range *o = &bus->r[i];

		if (r->base - o->base < o->len || o->base - r->base < r->len) {
			why_set(why, whylen,
				"internal error: %s %#" PRIx64 "+%" PRIu64
				" of the %s overlap %s %#" PRIx64 "+%" PRIu64 " of the %s",
				space, r->base, r->len, r->name, space, o->base, o->len, o->name);
			return -EBUSY;
		}
	}
	if (bus->n == BUS_MAX_RANGES) {
		why_set(why, whylen, "internal error: no room on the %s bus for the %s", space,
			r->name);
		return -ENOSPC;
	}
	bus->r[bus->n++] = *r;
	return 0;
}

const struct bus_range *bus_find(const struct bus *bus, uint64_t addr)
{
	unsigned i;

	/* A handful of ranges: a linear scan beats anything cleverer. */
	for (i = 0; i < bus->n; i++)
		if (addr - bus->r[i].base < bus->r[i].len)
			return &bus->r[i];
	return NULL;
}
