/* knob.c: the guest runtime's knobs as the host sees them (get, set, parse). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "csan/abi.h"
#include "vmm/guest/csan/csan_state.h"
#include "vmm/guest/csan/knob.h"
#include "vmm/kvm/vm.h"

/* The same list the guest parses its command line with (include/csan/abi.h). */
#define KNOB_ENTRY(field, maximum) { #field, offsetof(struct csan_control, field), maximum },
static const struct knob knobs[] = { CSAN_KNOB_LIST(KNOB_ENTRY) };
#undef KNOB_ENTRY

/*
 * hc_attach checks only that the block holds its fixed head (the fields
 * before counters[]); a knob appended after that would need a check
 * against the attached size before the host may touch it.
 */
#define KNOB_CHECK_IN_HEAD(field, maximum)                                                         \
	_Static_assert(offsetof(struct csan_control, field) + sizeof(uint32_t) <=                  \
			       offsetof(struct csan_control, counters),                            \
		       "knob " #field " lies outside the checked head of csan_control");
CSAN_KNOB_LIST(KNOB_CHECK_IN_HEAD)
#undef KNOB_CHECK_IN_HEAD

size_t knob_count(void)
{
	return sizeof(knobs) / sizeof(knobs[0]);
}

const struct knob *knob_at(size_t i)
{
	return i < knob_count() ? &knobs[i] : NULL;
}

const struct knob *knob_find(const char *name)
{
	size_t i;

	for (i = 0; i < knob_count(); i++)
		if (strcmp(knobs[i].name, name) == 0)
			return &knobs[i];
	return NULL;
}

int knob_parse_value(const struct knob *k, const char *s, uint32_t *out)
{
	unsigned long long v;
	char *end;

	if (strcmp(s, "y") == 0 || strcmp(s, "Y") == 0)
		v = 1;
	else if (strcmp(s, "n") == 0 || strcmp(s, "N") == 0)
		v = 0;
	else {
		/* strtoull alone would take signs, spaces and octal. */
		if (s[0] < '0' || s[0] > '9' || (s[0] == '0' && s[1] >= '0' && s[1] <= '9'))
			return -EINVAL;
		errno = 0;
		v = strtoull(s, &end, s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10);
		if (*end || end == s)
			return -EINVAL;
		if (errno == ERANGE)
			return -ERANGE;
	}
	if (v > k->max)
		return -ERANGE;
	*out = (uint32_t)v;
	return 0;
}

static uint32_t *knob_slot(struct vm *vm, const struct knob *k)
{
	struct csan_control *c = csan_control(vm);

	return c ? (uint32_t *)((char *)c + k->offset) : NULL;
}

int knob_get(struct vm *vm, const struct knob *k, uint32_t *out)
{
	uint32_t *slot = knob_slot(vm, k);

	if (!slot)
		return -EAGAIN;
	*out = __atomic_load_n(slot, __ATOMIC_RELAXED);
	return 0;
}

int knob_set(struct vm *vm, const struct knob *k, uint32_t v)
{
	uint32_t *slot = knob_slot(vm, k);

	if (v > k->max)
		return -ERANGE;
	if (!slot)
		return -EAGAIN;
	__atomic_store_n(slot, v, __ATOMIC_RELAXED);
	return 0;
}
