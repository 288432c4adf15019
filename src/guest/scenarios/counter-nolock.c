/* counter-nolock.c: zoo: CPUs increment a shared counter with plain accesses, no lock. */
#include "csan.h"
#include "scenario.h"
#include "zoo.h"

/*
 * Expected (../shared/ZOO.md), in both modes: a data race with two
 * stacks, "data-race in counter_nolock_inc / counter_nolock_inc".  With
 * gcc the increment is a plain 8-byte read and a plain 8-byte write; the
 * write is assumed atomic by default (csan.assume_plain_writes_atomic=1),
 * so it is the read that gets watched, and another CPU's write runs into
 * it and changes the value.  With clang it is one compound read-write.
 * An unknown-origin report may come first (the other CPU's write was
 * checked just before the watchpoint went up and landed during the
 * watch): true, but not the report this row waits for.
 */

static uint64_t counter; /* the racy variable: plain accesses only */

/* Its own function, so both stacks of the report name it. */
static __noinline void counter_nolock_inc(void)
{
	counter++;
}

static uint64_t counter_nolock_step(unsigned int cpu, uint64_t i)
{
	counter_nolock_inc();
	return 0;
}

static const struct zoo_row counter_nolock_row = {
	.step = counter_nolock_step,
	.min_cpus = 2,
	/*
	 * Under PVM's instruction emulator (~1.6 M guest instructions/s per
	 * vCPU) the first report comes within a second or two; the budget
	 * leaves room for a loaded host.
	 */
	.budget_ms = 30000,
	.expect = { .soft = ZOO_DATA_RACE, .hw = ZOO_DATA_RACE },
	.also_kinds = ZOO_ONE_SIDED,
};

ZOO_SCENARIO("counter-nolock",
	     "zoo: CPUs increment a shared counter with plain accesses and no lock (data race)",
	     counter_nolock_row);
