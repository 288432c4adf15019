/* writer-assert.c: zoo: ASSERT_EXCLUSIVE_WRITER() in a locked writer, and a buggy lockless one. */
#include "csan.h"
#include "scenario.h"
#include "zoo.h"

/*
 * Expected (../shared/ZOO.md), in both modes: "assert: race in
 * writer_assert_locked_writer / writer_assert_buggy_writer" (in either
 * order).  The locked writer asserts it is the only writer; the lockless
 * READ_ONCE() readers are fine for ASSERT_EXCLUSIVE_WRITER(), but the
 * buggy writer's WRITE_ONCE() without the lock runs into the assertion's
 * watchpoint.  Only the assertion is a plain (counted) access, so every
 * watchpoint lands on it.
 */

static spinlock_t writer_assert_lock = SPINLOCK_INIT;
static uint64_t writer_assert_val; /* written under the lock, read locklessly */

static __noinline void writer_assert_locked_writer(uint64_t v)
{
	spin_lock(&writer_assert_lock);
	ASSERT_EXCLUSIVE_WRITER(writer_assert_val);
	WRITE_ONCE(writer_assert_val, v);
	spin_unlock(&writer_assert_lock);
}

static __noinline uint64_t writer_assert_reader(void)
{
	return READ_ONCE(writer_assert_val);
}

/* The bug: a second writer that does not take the lock. */
static __noinline void writer_assert_buggy_writer(uint64_t v)
{
	WRITE_ONCE(writer_assert_val, v);
}

static uint64_t writer_assert_step(unsigned int cpu, uint64_t i)
{
	if (cpu == 0) {
		writer_assert_locked_writer(i);
		return writer_assert_reader();
	}
	/* Dense buggy writes: the assertion's watch lasts under 80 us. */
	writer_assert_buggy_writer(i);
	writer_assert_buggy_writer(i + 1);
	writer_assert_buggy_writer(i + 2);
	writer_assert_buggy_writer(i + 3);
	return writer_assert_reader();
}

static const struct zoo_row writer_assert_row = {
	.step = writer_assert_step,
	.min_cpus = 2,
	.budget_ms = 50000,
	.expect = { .soft = ZOO_ASSERT, .hw = ZOO_ASSERT },
	.also_kinds = ZOO_ONE_SIDED,
};

ZOO_SCENARIO("writer-assert",
	     "zoo: ASSERT_EXCLUSIVE_WRITER() in a locked writer, lockless readers, and a buggy "
	     "lockless writer (assert: race)",
	     writer_assert_row);
