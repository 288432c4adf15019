/* bus.h: the address ranges devices own, I/O ports and MMIO, each with its handler. */
#ifndef CSAN_VMM_BUS_H
#define CSAN_VMM_BUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vcpu;

#define BUS_MAX_RANGES 16

/*
 * A device's handler for one KVM_EXIT_IO on a port of its range: @size
 * bytes per access, @count accesses for string I/O, packed in @data (read
 * from on writes, filled on reads).  Runs on @vcpu's thread.  Returns
 * VCPU_RESUME, or VCPU_STOP when the access ended the run.
 */
typedef int (*pio_handler)(struct vcpu *vcpu, void *ctx, uint16_t port, bool is_write,
			   uint8_t *data, unsigned size, unsigned count);

/*
 * A device's handler for one KVM_EXIT_MMIO inside its range: @len bytes
 * (1 to 8) at guest-physical @addr, in @data (read from on writes, filled
 * on reads).  Runs on @vcpu's thread.  Returns as a pio_handler.
 */
typedef int (*mmio_handler)(struct vcpu *vcpu, void *ctx, uint64_t addr, bool is_write,
			    uint8_t *data, unsigned len);

struct bus_range {
	uint64_t base, len; /* [base, base + len) */
	const char *name;
	union {
		pio_handler pio;
		mmio_handler mmio;
	} fn;
	void *ctx;
};

/*
 * One address space's ranges (the VM has two: vm->pio and vm->mmio).
 * Registered at set-up, before any vCPU runs; read-only afterwards.
 */
struct bus {
	unsigned n;
	struct bus_range r[BUS_MAX_RANGES];
};

/*
 * bus_add - give @r's range to its device, in address space @space
 * ("ports", "MMIO": for messages) whose addresses stop below @limit.
 * Returns 0; -EBUSY when the range overlaps one already registered (a
 * set-up bug: two devices must not answer one address; @why names both),
 * -ENOSPC when the table is full, -EINVAL for an empty range, one past
 * @limit or no handler.  @why may be NULL.
 */
int bus_add(struct bus *bus, const char *space, uint64_t limit, const struct bus_range *r,
	    char *why, size_t whylen);

/* bus_find - the range holding @addr, or NULL when no device does. */
const struct bus_range *bus_find(const struct bus *bus, uint64_t addr);

/* pio_register - bus_add for ports [@base, @base + @len) of @bus (vm->pio). */
static inline int pio_register(struct bus *bus, uint16_t base, uint32_t len, const char *name,
			       pio_handler fn, void *ctx, char *why, size_t whylen)
{
	struct bus_range r = { .base = base, .len = len, .name = name, .fn.pio = fn, .ctx = ctx };

	return bus_add(bus, "ports", 0x10000, &r, why, whylen);
}

/* pio_find - the range owning @port, or NULL when no device does. */
static inline const struct bus_range *pio_find(const struct bus *bus, uint16_t port)
{
	return bus_find(bus, port);
}

/*
 * mmio_register - bus_add for guest-physical [@base, @base + @len) of
 * @bus (vm->mmio): outside guest RAM and the in-kernel APICs, where KVM
 * exits with KVM_EXIT_MMIO.
 */
static inline int mmio_register(struct bus *bus, uint64_t base, uint64_t len, const char *name,
				mmio_handler fn, void *ctx, char *why, size_t whylen)
{
	struct bus_range r = { .base = base, .len = len, .name = name, .fn.mmio = fn, .ctx = ctx };

	return bus_add(bus, "MMIO", UINT64_MAX, &r, why, whylen);
}

#endif /* CSAN_VMM_BUS_H */
