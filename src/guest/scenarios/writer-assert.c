/* writer-assert.c: zoo: ASSERT_EXCLUSIVE_WRITER() in a locked writer, and a buggy lockless one. */
#include "csan.h"
#include "scenario.h"

/*
 * Expected in soft mode (../shared/ZOO.md): "assert: race in writer_assert_locked_writer /
 * writer_assert_buggy_writer" (in either order).  The locked writer asserts
 * it is the only writer; the lockless READ_ONCE() readers are fine for
 * ASSERT_EXCLUSIVE_WRITER(), but the buggy writer's WRITE_ONCE() without
 * the lock runs into the assertion's watchpoint.  Only the assertion is
 * a plain (counted) access, so every watchpoint lands on it.
 */
#define EXPECT "assert"

/* Until an assert report or this budget (ms). */
#define BUDGET_MS   50000
#define CHECK_EVERY 16

static bool stop;
static uint64_t deadline;
static uint64_t t_start_us, t_first_report_us;
static uint64_t iterations[CSAN_MAX_CPUS];
/* Where each CPU leaves what it read: a marked store, so no read is optimized away. */
static uint64_t sink[CSAN_MAX_CPUS];

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

static void writer_assert_worker(void *arg)
{
	unsigned int cpu = this_cpu_id(), i;
	uint64_t n = 0, sum = 0;

	while (!READ_ONCE(stop)) {
		for (i = 0; i < CHECK_EVERY; i++)
			sum += writer_assert_step(cpu, n + i);
		n += CHECK_EVERY;
		if (csan_reports_sent(CSAN_REPORT_ASSERT)) {
			uint64_t zero = 0, now = uptime_us() - t_start_us;

			__atomic_compare_exchange_n(&t_first_report_us, &zero, now, false,
						    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
			WRITE_ONCE(stop, true);
		} else if (deadline_passed(deadline)) {
			WRITE_ONCE(stop, true);
		}
	}
	iterations[cpu] = n;
	WRITE_ONCE(sink[cpu], sum);
}

static int writer_assert_run(void)
{
	unsigned int ncpus = csan_ncpus(), cpu;
	uint64_t total = 0, elapsed_us, expected, reports;

	csan_result_add("expect=%s cpus=%u", EXPECT, ncpus);
	if (ncpus < 2) {
		printk("writer-assert: needs two or more CPUs, has %u\n", ncpus);
		csan_result_add("reason=needs-2-cpus");
		return 1;
	}

	t_start_us = uptime_us();
	deadline = deadline_after_us((uint64_t)BUDGET_MS * 1000);
	csan_run_on_cpus(writer_assert_worker, NULL);
	elapsed_us = uptime_us() - t_start_us;
	for (cpu = 0; cpu < ncpus; cpu++)
		total += iterations[cpu];
	expected = csan_reports_sent(CSAN_REPORT_ASSERT);
	reports = csan_reports_sent(0);
	csan_result_add("expected_reports=%lu reports=%lu first_report_ms=%lu elapsed_ms=%lu "
			"iterations=%lu setup_watchpoints=%lu",
			(unsigned long)expected, (unsigned long)reports,
			(unsigned long)(t_first_report_us / 1000),
			(unsigned long)(elapsed_us / 1000), (unsigned long)total,
			(unsigned long)csan_counter(CSAN_COUNTER_SETUP_WATCHPOINTS));
	csan_counters_print();
	if (!expected) {
		printk("writer-assert: no assert reported within %u ms\n", BUDGET_MS);
		csan_result_add("reason=no-report");
		return 1;
	}
	return 0;
}

CSAN_SCENARIO("writer-assert",
	      "zoo: ASSERT_EXCLUSIVE_WRITER() in a locked writer, lockless readers, and a buggy "
	      "lockless writer (assert: race)",
	      writer_assert_run, 0);
