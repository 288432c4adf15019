/* lock-diag-buggy.c: zoo: as lock-ok, but one reader forgets the lock and reads plainly. */
#include "csan.h"
#include "scenario.h"

/*
 * Expected in soft mode (../shared/ZOO.md): a data race naming the
 * lockless reader, "data-race in lock_diag_buggy_reader / lock_diag_update"
 * (in either order).  The buggy reader's plain read gets watched, and the
 * locked writer's increment changes the value under it.  The locked reader
 * and the data_race() diagnostic are as in lock-ok and must not appear.
 */
#define EXPECT "data-race"

#define BUDGET_MS   50000
#define CHECK_EVERY 16

static spinlock_t lock_diag_lock = SPINLOCK_INIT;
/*
 * 16 bytes: a plain write this wide is not assumed atomic (unlike an
 * aligned word), so the writer's stores get watched too, and a lockless
 * reader running into one is caught even under a slow emulator.
 */
typedef unsigned __int128 u128;
static u128 lock_diag_val; /* meant to be accessed under lock_diag_lock */
static bool stop;
static uint64_t deadline;
static uint64_t t_start_us, t_first_report_us;
static uint64_t iterations[CSAN_MAX_CPUS];
/* Where each CPU leaves what it read: a marked store, so no read is optimized away. */
static uint64_t sums[CSAN_MAX_CPUS];

/*
 * A batch of increments per critical section: under PVM taking the lock
 * costs as much as many accesses, and the buggy reader's watch (under
 * 80 us) only sees a write if one comes soon, so the writes come dense.
 */
#define UPDATES_PER_LOCK 16

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

static void lock_diag_worker(void *arg)
{
	unsigned int cpu = this_cpu_id(), i;
	uint64_t n = 0;
	u128 sum = 0;

	while (!READ_ONCE(stop)) {
		for (i = 0; i < CHECK_EVERY; i++) {
			if (cpu == 0)
				/* The writer: short critical sections, back to back. */
				lock_diag_update();
			else
				/* The buggy reader, over and over. */
				sum += lock_diag_buggy_reader();
		}
		/*
		 * Now and then the well-behaved readers, as in lock-ok: the
		 * locked one on the writer's CPU, so the buggy reader never
		 * waits for the lock.
		 */
		if (cpu == 0)
			sum += lock_diag_reader();
		else
			sum += lock_diag_diag();
		n += CHECK_EVERY;
		if (csan_reports_sent(0)) {
			uint64_t zero = 0, now = uptime_us() - t_start_us;

			__atomic_compare_exchange_n(&t_first_report_us, &zero, now, false,
						    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
			WRITE_ONCE(stop, true);
		} else if (deadline_passed(deadline)) {
			WRITE_ONCE(stop, true);
		}
	}
	iterations[cpu] = n;
	WRITE_ONCE(sums[cpu], (uint64_t)sum);
}

static int lock_diag_buggy_run(void)
{
	unsigned int ncpus = csan_ncpus();
	uint64_t elapsed_us, races;

	csan_result_add("expect=%s cpus=%u", EXPECT, ncpus);
	if (ncpus < 2) {
		printk("lock-diag-buggy: needs two or more CPUs, has %u\n", ncpus);
		csan_result_add("reason=needs-2-cpus");
		return 1;
	}
	t_start_us = uptime_us();
	deadline = deadline_after_us((uint64_t)BUDGET_MS * 1000);
	csan_run_on_cpus(lock_diag_worker, NULL);
	elapsed_us = uptime_us() - t_start_us;
	races = csan_reports_sent(CSAN_REPORT_DATA_RACE);
	csan_result_add(
		"races=%lu unknown_origin=%lu reports=%lu first_report_ms=%lu elapsed_ms=%lu "
		"writer_iterations=%lu reader_iterations=%lu",
		(unsigned long)races, (unsigned long)csan_reports_sent(CSAN_REPORT_UNKNOWN_ORIGIN),
		(unsigned long)csan_reports_sent(0), (unsigned long)(t_first_report_us / 1000),
		(unsigned long)(elapsed_us / 1000), (unsigned long)iterations[0],
		(unsigned long)iterations[1]);
	csan_counters_print();
	if (!races) {
		printk("lock-diag-buggy: no data race reported within %u ms\n", BUDGET_MS);
		csan_result_add("reason=no-report");
		return 1;
	}
	return 0;
}

CSAN_SCENARIO("lock-diag-buggy",
	      "zoo: as lock-ok, but one reader reads plainly without the lock (data race)",
	      lock_diag_buggy_run, 0);
