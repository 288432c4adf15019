/* knob.h: the guest runtime's knobs as the host sees them (get, set, parse). */
#ifndef CSAN_VMM_KNOB_H
#define CSAN_VMM_KNOB_H

#include <stddef.h>
#include <stdint.h>

struct vm;

/* One knob: its csan.NAME, where it lives in struct csan_control, its range [0, max]. */
struct knob {
	const char *name;
	size_t offset;
	uint32_t max;
};

/* knob_count, knob_at - the knobs in the ABI header's order; knob_at(i) for i < knob_count(). */
size_t knob_count(void);
const struct knob *knob_at(size_t i);

/* knob_find - the knob called @name (without "csan."), or NULL. */
const struct knob *knob_find(const char *name);

/*
 * knob_parse_value - parse @s as a value for @k: decimal, 0x-hex, or y/n
 * (1/0), as the guest's command line takes them.  Returns 0 with the value
 * in @out, -EINVAL for something that is not a number, -ERANGE for a
 * number above k->max.
 */
int knob_parse_value(const struct knob *k, const char *s, uint32_t *out);

/*
 * knob_get, knob_set - read or write @k in the control block the guest
 * attached (aligned 32-bit accesses; the guest reads each knob afresh at
 * every use, so a write takes effect at its next watchpoint).  Return 0,
 * -EAGAIN when the guest has not attached a block yet, -ERANGE (knob_set)
 * for @v above k->max.
 */
int knob_get(struct vm *vm, const struct knob *k, uint32_t *out);
int knob_set(struct vm *vm, const struct knob *k, uint32_t v);

#endif /* CSAN_VMM_KNOB_H */
