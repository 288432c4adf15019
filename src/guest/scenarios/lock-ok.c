/* lock-ok.c: zoo: a variable accessed only under a spinlock, plus a data_race() diagnostic read. */
#include "csan.h"
#include "scenario.h"
#include "zoo.h"

/*
 * Expected (../shared/ZOO.md), in both modes: no report at all.  Every
 * plain access to lock_ok_val happens with lock_ok_lock held; the one
 * lockless read is a statistics read wrapped in data_race().  The lock
 * word itself is only touched by xchg (inline asm) and READ_ONCE/WRITE_ONCE.
 */

static spinlock_t lock_ok_lock = SPINLOCK_INIT;
/*
 * 16 bytes: a plain write this wide is not assumed atomic (unlike an
 * aligned word), so the writer's stores get watched too, and a lockless
 * reader running into one is caught even under a slow emulator.
 */
typedef unsigned __int128 u128;
static u128 lock_ok_val; /* plain accesses, always under lock_ok_lock */

static __noinline void lock_ok_update(void)
{
	spin_lock(&lock_ok_lock);
	lock_ok_val++;
	spin_unlock(&lock_ok_lock);
}

static __noinline u128 lock_ok_reader(void)
{
	u128 v;

	spin_lock(&lock_ok_lock);
	v = lock_ok_val;
	spin_unlock(&lock_ok_lock);
	return v;
}

/* A diagnostic read: racy on purpose, and documented so. */
static __noinline u128 lock_ok_diag(void)
{
	return data_race(lock_ok_val);
}

/* Exactly one update a step: finish() checks none was lost. */
static uint64_t lock_ok_step(unsigned int cpu, uint64_t i)
{
	lock_ok_update();
	return (uint64_t)(lock_ok_reader() + lock_ok_diag());
}

/* The lock must really have serialized the updates. */
static bool lock_ok_finish(uint64_t iterations)
{
	if (lock_ok_val != iterations) {
		printk("lock-ok: counter %lu, want %lu\n", (unsigned long)(uint64_t)lock_ok_val,
		       (unsigned long)iterations);
		csan_result_add("reason=lost-update");
		return false;
	}
	return true;
}

static const struct zoo_row lock_ok_row = {
	.step = lock_ok_step,
	.finish = lock_ok_finish,
	.min_cpus = 2,
	/*
	 * Race-free, so it always runs the whole budget.  lock-diag-buggy,
	 * the same code with one lockless plain reader, is reported within a
	 * couple of seconds under PVM; this budget gives as many watchpoints
	 * a chance.
	 */
	.budget_ms = 3000,
	.expect = { .soft = ZOO_NONE, .hw = ZOO_NONE },
};

ZOO_SCENARIO("lock-ok",
	     "zoo: plain accesses only under a spinlock, plus a data_race() diagnostic (no report)",
	     lock_ok_row);
