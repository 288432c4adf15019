/* value-unchanged.c: zoo: concurrent plain writes that store the value already there. */
#include "csan.h"
#include "scenario.h"
#include "zoo.h"

/*
 * Expected (../shared/ZOO.md), in both modes: no report by default.  Both
 * CPUs read value_unchanged_val plainly and store back the value it
 * already holds (a plain 8-byte write, assumed atomic): a watched read
 * sees the other CPU's write run into it, but the value never changes,
 * and with csan.report_value_change_only=1 (the default) such a race is
 * not reported.  With the knob off it is.
 */

static uint64_t value_unchanged_val = 42; /* plain accesses, never changes */

static __noinline uint64_t value_unchanged_store(void)
{
	uint64_t v = value_unchanged_val;

	value_unchanged_val = 42;
	return v;
}

static uint64_t value_unchanged_step(unsigned int cpu, uint64_t i)
{
	return value_unchanged_store();
}

static const struct zoo_row value_unchanged_row = {
	.step = value_unchanged_step,
	.min_cpus = 2,
	.budget_ms = 3000, /* by default race-free: runs it all */
	.expect = { .soft = ZOO_NONE, .hw = ZOO_NONE },
	.when = { { "report_value_change_only", 0 } },
	.when_expect = { .soft = ZOO_DATA_RACE, .hw = ZOO_DATA_RACE },
};

ZOO_SCENARIO(
	"value-unchanged",
	"zoo: concurrent plain writes that store the value already there (no report by default)",
	value_unchanged_row);
