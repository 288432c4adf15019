/* writer-assert-uninstr.c: zoo: as writer-assert, but the buggy writer is uninstrumented. */
#include "csan.h"
#include "scenario.h"
#include "uninstr/halves.h"
#include "zoo.h"

/*
 * Expected (../shared/ZOO.md): in soft mode at most a single-stack
 * unknown-origin report: the buggy writer (uninstr/, not instrumented)
 * never runs into the assertion's watchpoint, but the watcher may see the
 * value change under it; an assertion's change is always reported, with
 * the asserting writer's stack only.  In hw mode the debug registers
 * catch the uninstrumented write: "assert: race" with both stacks, the
 * buggy writer named.
 */

static spinlock_t writer_assert_uninstr_lock = SPINLOCK_INIT;
uint64_t writer_assert_uninstr_val; /* written under the lock, read locklessly */

static __noinline void writer_assert_uninstr_locked_writer(uint64_t v)
{
	spin_lock(&writer_assert_uninstr_lock);
	ASSERT_EXCLUSIVE_WRITER(writer_assert_uninstr_val);
	WRITE_ONCE(writer_assert_uninstr_val, v);
	spin_unlock(&writer_assert_uninstr_lock);
}

static __noinline uint64_t writer_assert_uninstr_reader(void)
{
	return READ_ONCE(writer_assert_uninstr_val);
}

static uint64_t writer_assert_uninstr_step(unsigned int cpu, uint64_t i)
{
	if (cpu == 0) {
		writer_assert_uninstr_locked_writer(i);
		return writer_assert_uninstr_reader();
	}
	/* Dense buggy writes: the assertion's watch lasts under 80 us. */
	writer_assert_uninstr_buggy_writer(i);
	writer_assert_uninstr_buggy_writer(i + 1);
	writer_assert_uninstr_buggy_writer(i + 2);
	writer_assert_uninstr_buggy_writer(i + 3);
	return writer_assert_uninstr_reader();
}

static const struct zoo_row writer_assert_uninstr_row = {
	.step = writer_assert_uninstr_step,
	.min_cpus = 2,
	/* Silence is a pass in soft mode, so it may run it all: keep it short. */
	.budget_ms = 10000,
	.expect = { .soft = ZOO_AT_MOST_UNKNOWN_ORIGIN, .hw = ZOO_ASSERT },
	/*
	 * hw mode: a write landing after the soft watch starts but before the
	 * host has armed the debug register shows as a value change only.
	 */
	.also_kinds = ZOO_KIND(CSAN_REPORT_UNKNOWN_ORIGIN),
};

ZOO_SCENARIO("writer-assert-uninstr",
	     "zoo: as writer-assert, but the buggy writer is uninstrumented (soft: at most an "
	     "unknown-origin report)",
	     writer_assert_uninstr_row);
