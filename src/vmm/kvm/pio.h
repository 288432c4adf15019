/* pio.h: the I/O port bus: each device owns a port range with its handler. */
#ifndef CSAN_VMM_PIO_H
#define CSAN_VMM_PIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vcpu;

#define PIO_MAX_RANGES 16

/*
 * A device's handler for one KVM_EXIT_IO on a port of its range: @size
 * bytes per access, @count accesses for string I/O, packed in @data (read
 * from on writes, filled on reads).  Runs on @vcpu's thread.  Returns
 * VCPU_RESUME, or VCPU_STOP when the access ended the run.
 */
typedef int (*pio_handler)(struct vcpu *vcpu, void *ctx, uint16_t port, bool is_write,
			   uint8_t *data, unsigned size, unsigned count);

struct pio_range {
	uint16_t base;
	uint32_t len; /* ports [base, base + len) */
	const char *name;
	pio_handler fn;
	void *ctx;
};

/* Registered at set-up, before any vCPU runs; read-only afterwards. */
struct pio_bus {
	unsigned n;
	struct pio_range r[PIO_MAX_RANGES];
};

/*
 * pio_register - give ports [@base, @base + @len) to device @name.
 * Returns 0; -EBUSY when the range overlaps one already registered (a
 * set-up bug: two devices must not answer one port; @why names both),
 * -ENOSPC when the table is full, -EINVAL for an empty range or one past
 * port 0xffff.  @why may be NULL.
 */
int pio_register(struct pio_bus *bus, uint16_t base, uint32_t len, const char *name, pio_handler fn,
		 void *ctx, char *why, size_t whylen);

/* pio_find - the range owning @port, or NULL when no device does. */
const struct pio_range *pio_find(const struct pio_bus *bus, uint16_t port);

#endif /* CSAN_VMM_PIO_H */
