/* xchg-lockless.c: zoo: all accesses marked: xchg() writers, READ_ONCE() readers (no report) */
#include "csan.h"
#include "scenario.h"
#include "zoo.h"

/*
 * Expected (../shared/ZOO.md), in both modes: no report.  Every access to
 * xchg_val is marked: __atomic_exchange_n() (instrumented as
 * __tsan_atomic64_exchange) writers and READ_ONCE() readers.  Marked
 * accesses never set up watchpoints, and two marked accesses never race.
 */

static uint64_t xchg_val; /* marked accesses only */

static __noinline uint64_t xchg_lockless_writer(uint64_t v)
{
	return __atomic_exchange_n(&xchg_val, v, __ATOMIC_SEQ_CST);
}

static __noinline uint64_t xchg_lockless_reader(void)
{
	return READ_ONCE(xchg_val);
}

/*
 * Both CPUs write and read; CPU 0 mostly writes, the others mostly read.
 * The witness's watchpoints show this row was watched (zoo.h).
 */
static uint64_t xchg_lockless_step(unsigned int cpu, uint64_t i)
{
	if ((cpu == 0) == ((i & 3) != 0))
		return xchg_lockless_writer(i) + zoo_witness(cpu);
	return xchg_lockless_reader() + zoo_witness(cpu);
}

static const struct zoo_row xchg_lockless_row = {
	.step = xchg_lockless_step,
	.min_cpus = 2,
	.budget_ms = 3000, /* race-free: always runs it all */
	.expect = { .soft = ZOO_NONE, .hw = ZOO_NONE },
};

ZOO_SCENARIO("xchg-lockless",
	     "zoo: all accesses marked: xchg() writers, READ_ONCE() readers (no report)",
	     xchg_lockless_row);
