/* percpu-offcpu.c: zoo: a per-CPU counter under ASSERT_EXCLUSIVE_WRITER(), written remotely. */
#include "csan.h"
#include "scenario.h"
#include "zoo.h"

/*
 * Expected (../shared/ZOO.md), in both modes: "assert: race in
 * percpu_offcpu_buggy_remote / percpu_offcpu_owner_inc" (in either
 * order).  Each CPU counts events in its own slot with a non-atomic
 * increment (its owner is the only writer, so that is enough) and
 * asserts it with ASSERT_EXCLUSIVE_WRITER(); any CPU may sum the slots
 * with READ_ONCE(), which the assertion allows.  The bug: CPU 1 also
 * bumps CPU 0's slot.  The accesses are marked, so only the assertions
 * get watched.
 */

struct percpu_offcpu_slot {
	uint64_t events;
} __aligned(64);

static struct percpu_offcpu_slot percpu_offcpu_slots[CSAN_MAX_CPUS];

static __noinline void percpu_offcpu_owner_inc(unsigned int cpu)
{
	struct percpu_offcpu_slot *s = &percpu_offcpu_slots[cpu];

	ASSERT_EXCLUSIVE_WRITER(s->events);
	WRITE_ONCE(s->events, READ_ONCE(s->events) + 1);
}

static __noinline uint64_t percpu_offcpu_sum(void)
{
	unsigned int cpu, n = csan_ncpus();
	uint64_t sum = 0;

	for (cpu = 0; cpu < n; cpu++)
		sum += READ_ONCE(percpu_offcpu_slots[cpu].events);
	return sum;
}

/* The bug: a write to another CPU's slot. */
static __noinline void percpu_offcpu_buggy_remote(unsigned int owner)
{
	struct percpu_offcpu_slot *s = &percpu_offcpu_slots[owner];

	WRITE_ONCE(s->events, READ_ONCE(s->events) + 1);
}

static uint64_t percpu_offcpu_step(unsigned int cpu, uint64_t i)
{
	percpu_offcpu_owner_inc(cpu);
	if (cpu == 1) {
		/*
		 * Dense remote writes (the assertion's watch lasts under 80 us)
		 * to the next CPU's slot, CPU 0's with two CPUs.  Not a
		 * constant: gcc would clone the function for it and rename it.
		 */
		unsigned int victim = (cpu + 1) % csan_ncpus();

		percpu_offcpu_buggy_remote(victim);
		percpu_offcpu_buggy_remote(victim);
		percpu_offcpu_buggy_remote(victim);
	}
	return i % 8 == 0 ? percpu_offcpu_sum() : 0;
}

static const struct zoo_row percpu_offcpu_row = {
	.step = percpu_offcpu_step,
	.min_cpus = 2,
	.budget_ms = 50000,
	.expect = { .soft = ZOO_ASSERT, .hw = ZOO_ASSERT },
	.also_kinds = ZOO_ONE_SIDED,
};

ZOO_SCENARIO("percpu-offcpu",
	     "zoo: a per-CPU counter with ASSERT_EXCLUSIVE_WRITER(), written by a remote CPU "
	     "(assert: race)",
	     percpu_offcpu_row);
