/* plain-write-atomic.c: zoo: aligned plain word writes racing with READ_ONCE() readers. */
#include "csan.h"
#include "scenario.h"
#include "zoo.h"

/*
 * Expected (../shared/ZOO.md), in both modes: no report by default.  Two
 * CPUs write plain_write_atomic_val with plain aligned 8-byte stores, each
 * its own values, and every CPU but the first reads it with READ_ONCE().
 * With csan.assume_plain_writes_atomic=1 (the default, as in Linux) such
 * a write counts as marked, and marked against marked is no race.  With
 * the knob off the writes are watched: the other writer's store runs into
 * a watch and changes the value, a data race.  (A reader running into a
 * watched write alone would not do: the watched write has not happened
 * yet, so no value change is seen, and csan.report_value_change_only=1
 * skips it, as KCSAN's skip_report() does.)
 */

static uint64_t plain_write_atomic_val;

static __noinline void plain_write_atomic_writer(uint64_t v)
{
	plain_write_atomic_val = v;
}

static __noinline uint64_t plain_write_atomic_reader(void)
{
	return READ_ONCE(plain_write_atomic_val);
}

static uint64_t plain_write_atomic_step(unsigned int cpu, uint64_t i)
{
	/* Odd values from one writer, even from the other: every store changes it. */
	if (cpu < 2)
		plain_write_atomic_writer(i << 1 | cpu);
	/* By default nothing above is watched: the witness is (zoo.h). */
	return (cpu ? plain_write_atomic_reader() : 0) + zoo_witness(cpu);
}

static const struct zoo_row plain_write_atomic_row = {
	.step = plain_write_atomic_step,
	.min_cpus = 2,
	.budget_ms = 3000, /* by default race-free: runs it all */
	.expect = { .soft = ZOO_NONE, .hw = ZOO_NONE },
	.when = { { "assume_plain_writes_atomic", 0 } },
	.when_expect = { .soft = ZOO_DATA_RACE, .hw = ZOO_DATA_RACE },
	.also_kinds = ZOO_ONE_SIDED,
};

ZOO_SCENARIO(
	"plain-write-atomic",
	"zoo: aligned plain word writes racing with READ_ONCE() readers (no report by default)",
	plain_write_atomic_row);
