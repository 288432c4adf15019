/* lock-diag-buggy.c: zoo: as lock-ok, but one reader forgets the lock and reads plainly. */
#include "csan.h"
#include "scenario.h"
#include "zoo.h"

/*
 * Expected (../shared/ZOO.md), in both modes: a data race naming the
 * lockless reader, "data-race in lock_diag_buggy_reader / lock_diag_update"
 * (in either order).  The buggy reader's plain read gets watched, and the
 * locked writer's increment changes the value under it.  The locked reader
 * and the data_race() diagnostic are as in lock-ok and must not appear.
 */

static spinlock_t lock_diag_lock = SPINLOCK_INIT;
/*
 * 16 bytes: a plain write this wide is not assumed atomic (unlike an
 * aligned word), so the writer's stores get watched too, and a lockless
 * reader running into one is caught even under a slow emulator.
 */
typedef unsigned __int128 u128;
static u128 lock_diag_val; /* meant to be accessed under lock_diag_lock */

/*
 * A batch of increments per critical section: under PVM taking the lock
 * costs as much as many accesses, and the buggy reader's watch (under
 * 80 us) only sees a write if one comes soon, so the writes come dense.
 */
#define UPDATES_PER_LOCK 16
/* The well-behaved readers run once every this many steps. */
#define GOOD_READER_EVERY 16

static __noinline void lock_diag_update(void)
{
	unsigned int i;

	spin_lock(&lock_diag_lock);
	for (i = 0; i < UPDATES_PER_LOCK; i++) {
		lock_diag_val++;
		barrier();
	}
	spin_unlock(&lock_diag_lock);
}

static __noinline u128 lock_diag_reader(void)
{
	u128 v;

	spin_lock(&lock_diag_lock);
	v = lock_diag_val;
	spin_unlock(&lock_diag_lock);
	return v;
}

static __noinline u128 lock_diag_diag(void)
{
	return data_race(lock_diag_val);
}

/* The bug: no lock, and a plain read. */
static __noinline u128 lock_diag_buggy_reader(void)
{
	return lock_diag_val;
}

/*
 * CPU 0 writes in short critical sections back to back, the others read
 * without the lock over and over.  Now and then the well-behaved readers
 * of lock-ok run too: the locked one on the writer's CPU, so the buggy
 * reader never waits for the lock.
 */
static uint64_t lock_diag_step(unsigned int cpu, uint64_t i)
{
	u128 sum = 0;

	if (cpu == 0)
		lock_diag_update();
	else
		sum += lock_diag_buggy_reader();
	if (i % GOOD_READER_EVERY == GOOD_READER_EVERY - 1)
		sum += cpu == 0 ? lock_diag_reader() : lock_diag_diag();
	return (uint64_t)sum;
}

static const struct zoo_row lock_diag_buggy_row = {
	.step = lock_diag_step,
	.min_cpus = 2,
	.budget_ms = 50000,
	.expect = { .soft = ZOO_DATA_RACE, .hw = ZOO_DATA_RACE },
	.also_kinds = ZOO_ONE_SIDED,
};

ZOO_SCENARIO("lock-diag-buggy",
	     "zoo: as lock-ok, but one reader reads plainly without the lock (data race)",
	     lock_diag_buggy_row);
