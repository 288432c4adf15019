/* sample_knobs.c: sampling's knobs, as flags at start and on the control socket while it runs. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "vmm/hwwatch/hw_watch.h"
#include "vmm/kvm/vm.h"
#include "vmm/sample/sample.h"
#include "vmm/sample/sampler.h"

/* The ranges --sample-* and 'set' check, one table for both. */
const struct sample_knob sample_knobs[SAMPLE_KNOBS] = {
	[SAMPLE_KNOB_BREAKPOINTS] = { "sample_breakpoints", 1, HW_CODE_MAX },
	[SAMPLE_KNOB_DELAY_MS] = { "sample_delay_ms", 0, 1000 },
	[SAMPLE_KNOB_PERIOD_MS] = { "sample_period_ms", 1, 60000 },
	[SAMPLE_KNOB_PAUSED] = { "sample_paused", 0, 1 },
};

const struct sample_knob *sample_knob_find(const char *name)
{
	unsigned i;

	for (i = 0; i < SAMPLE_KNOBS; i++)
		if (strcmp(sample_knobs[i].name, name) == 0)
			return &sample_knobs[i];
	return NULL;
}

static unsigned *field(struct sampler *sp, const struct sample_knob *k)
{
	switch (k - sample_knobs) {
	case SAMPLE_KNOB_BREAKPOINTS: return &sp->o.breakpoints;
	case SAMPLE_KNOB_DELAY_MS: return &sp->o.delay_ms;
	case SAMPLE_KNOB_PAUSED: return &sp->o.paused;
	default: return &sp->o.period_ms;
	}
}

int sample_knob_get(struct vm *vm, const struct sample_knob *k, uint32_t *out)
{
	if (!vm->sample)
		return -EAGAIN;
	*out = __atomic_load_n(field(vm->sample, k), __ATOMIC_RELAXED);
	return 0;
}

/*
 * Read afresh at each use (the tick's next draw, the next hit's hold), so
 * a change takes effect there; a period shortened waits out the old one
 * once.
 */
int sample_knob_set(struct vm *vm, const struct sample_knob *k, uint32_t v)
{
	if (!vm->sample)
		return -EAGAIN;
	if (v < k->min || v > k->max)
		return -ERANGE;
	__atomic_store_n(field(vm->sample, k), v, __ATOMIC_RELAXED);
	return 0;
}
