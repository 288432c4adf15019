/* uninstr-origin.c: zoo: a plain reader racing with a writer in uninstrumented code. */
#include "csan.h"
#include "scenario.h"
#include "uninstr/halves.h"
#include "zoo.h"

/*
 * Expected (../shared/ZOO.md): in soft mode "race at unknown origin" with
 * the reader's stack only and the value change: the writer
 * (uninstr/uninstr-origin.c) never checks for watchpoints, so all the
 * reader's watch can tell is that the value changed under it.  In hw mode
 * the debug registers catch the write: a data race with two stacks, the
 * uninstrumented writer named.
 */

uint64_t uninstr_origin_val; /* plain accesses on both sides */

static __noinline uint64_t uninstr_origin_reader(void)
{
	return uninstr_origin_val;
}

static uint64_t uninstr_origin_step(unsigned int cpu, uint64_t i)
{
	if (cpu == 0)
		return uninstr_origin_reader();
	/* Dense writes, each a new value: the reader's watch lasts under 80 us. */
	uninstr_origin_writer(4 * i);
	uninstr_origin_writer(4 * i + 1);
	uninstr_origin_writer(4 * i + 2);
	uninstr_origin_writer(4 * i + 3);
	return 0;
}

static const struct zoo_row uninstr_origin_row = {
	.step = uninstr_origin_step,
	.min_cpus = 2,
	.budget_ms = 50000,
	.expect = { .soft = ZOO_UNKNOWN_ORIGIN, .hw = ZOO_DATA_RACE },
	/*
	 * hw mode: a write landing after the soft watch starts but before the
	 * host has armed the debug register shows as a value change only.
	 */
	.also_kinds = ZOO_KIND(CSAN_REPORT_UNKNOWN_ORIGIN),
};

ZOO_SCENARIO("uninstr-origin",
	     "zoo: a plain reader and a writer in uninstrumented code (soft: race at unknown "
	     "origin)",
	     uninstr_origin_row);
