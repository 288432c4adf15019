/* lock-ok.c: zoo: a variable accessed only under a spinlock, plus a data_race() diagnostic read. */
#include "csan.h"
#include "scenario.h"

/*
 * Expected in soft mode (../shared/ZOO.md): no report at all.  Every
 * plain access to lock_ok_val happens with lock_ok_lock held; the one
 * lockless read is a statistics read wrapped in data_race().  The lock
 * word itself is only touched by xchg (inline asm) and READ_ONCE/WRITE_ONCE.
 */
#define EXPECT "none"

/*
 * Race-free, so it always runs the whole budget.  lock-diag-buggy, the
 * same code with one lockless plain reader, is reported within a couple
 * of seconds under PVM; this budget gives as many watchpoints a chance.
 */
#define BUDGET_MS   3000
#define CHECK_EVERY 16

static spinlock_t lock_ok_lock = SPINLOCK_INIT;
/*
 * 16 bytes: a plain write this wide is not assumed atomic (unlike an
 * aligned word), so the writer's stores get watched too, and a lockless
 * reader running into one is caught even under a slow emulator.
 */
typedef unsigned __int128 u128;
static u128 lock_ok_val; /* plain accesses, always under lock_ok_lock */
static bool stop;
static uint64_t deadline;
static uint64_t iterations[CSAN_MAX_CPUS];
/* Where each CPU leaves what it read: a marked store, so no read is optimized away. */
static uint64_t diag_sum[CSAN_MAX_CPUS];

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

static void lock_ok_worker(void *arg)
{
	unsigned int cpu = this_cpu_id(), i;
	uint64_t n = 0;
	u128 sum = 0;

	while (!READ_ONCE(stop)) {
		for (i = 0; i < CHECK_EVERY; i++) {
			lock_ok_update();
			sum += lock_ok_reader();
			sum += lock_ok_diag();
		}
		n += CHECK_EVERY;
		if (csan_reports_sent(0) || deadline_passed(deadline))
			WRITE_ONCE(stop, true);
	}
	iterations[cpu] = n;
	WRITE_ONCE(diag_sum[cpu], (uint64_t)sum);
}

static int lock_ok_run(void)
{
	unsigned int ncpus = csan_ncpus(), cpu;
	uint64_t total = 0, t0, elapsed_us, reports;

	csan_result_add("expect=%s cpus=%u", EXPECT, ncpus);
	if (ncpus < 2) {
		printk("lock-ok: needs two or more CPUs, has %u\n", ncpus);
		csan_result_add("reason=needs-2-cpus");
		return 1;
	}
	t0 = uptime_us();
	deadline = deadline_after_us((uint64_t)BUDGET_MS * 1000);
	csan_run_on_cpus(lock_ok_worker, NULL);
	elapsed_us = uptime_us() - t0;
	for (cpu = 0; cpu < ncpus; cpu++)
		total += iterations[cpu];
	reports = csan_reports_sent(0);
	csan_result_add("reports=%lu iterations=%lu elapsed_ms=%lu setup_watchpoints=%lu",
			(unsigned long)reports, (unsigned long)total,
			(unsigned long)(elapsed_us / 1000),
			(unsigned long)csan_counter(CSAN_COUNTER_SETUP_WATCHPOINTS));
	csan_counters_print();
	if (reports) {
		csan_result_add("reason=unexpected-report");
		return 1;
	}
	if (lock_ok_val != total) {
		printk("lock-ok: counter %lu, want %lu\n", (unsigned long)(uint64_t)lock_ok_val,
		       (unsigned long)total);
		csan_result_add("reason=lost-update");
		return 1;
	}
	return 0;
}

CSAN_SCENARIO(
	"lock-ok",
	"zoo: plain accesses only under a spinlock, plus a data_race() diagnostic (no report)",
	lock_ok_run, 0);
