/* plain-write-atomic.c: zoo: aligned plain word writes racing with READ_ONCE() readers. */
#include "csan.h"
#include "scenario.h"
#include "zoo.h"

/*
 * Expected (../shared/ZOO.md), in both modes: no report by default.  One
 * CPU writes plain_write_atomic_val with plain aligned 8-byte stores, the
 * others read it with READ_ONCE().  With csan.assume_plain_writes_atomic=1
 * (the default, as in Linux) such a write counts as marked, and marked
 * against marked is no race.  With the knob off the write is watched and
 * the readers run into it, but, as in KCSAN, that alone is not reported:
 * the watched write has not happened yet, so the watcher sees no value
 * change, and csan.report_value_change_only=1 (the default) skips a
 * write watchpoint hit by a reader without one (KCSAN's skip_report(),
 * its case 5; the data_races counter still counts it).  With both knobs
 * off it is reported as a data race.
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
	if (cpu == 0) {
		plain_write_atomic_writer(i);
		return 0;
	}
	return plain_write_atomic_reader();
}

static const struct zoo_row plain_write_atomic_row = {
	.step = plain_write_atomic_step,
	.min_cpus = 2,
	.budget_ms = 3000, /* by default race-free: runs it all */
	.expect = { .soft = ZOO_NONE, .hw = ZOO_NONE },
	.when = { { "assume_plain_writes_atomic", 0 }, { "report_value_change_only", 0 } },
	.when_expect = { .soft = ZOO_DATA_RACE, .hw = ZOO_DATA_RACE },
};

ZOO_SCENARIO(
	"plain-write-atomic",
	"zoo: aligned plain word writes racing with READ_ONCE() readers (no report by default)",
	plain_write_atomic_row);
