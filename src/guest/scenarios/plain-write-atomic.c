/* plain-write-atomic.c: zoo: aligned plain word writes racing with READ_ONCE() readers. */
#include "csan.h"
#include "scenario.h"

/*
 * Expected in soft mode (../shared/ZOO.md): no report by default.  One CPU writes
 * plain_write_atomic_val with plain aligned 8-byte stores, the others read
 * it with READ_ONCE().  With csan.assume_plain_writes_atomic=1 (the
 * default, as in Linux) such a write counts as marked, and marked against
 * marked is no race.  With the knob off the write is watched and the
 * readers run into it.
 */
#define EXPECT "none"

/* Until a report (a failure by default) or this budget (ms). */
#define BUDGET_MS   3000
#define CHECK_EVERY 16

static bool stop;
static uint64_t deadline;
static uint64_t t_start_us, t_first_report_us;
static uint64_t iterations[CSAN_MAX_CPUS];
/* Where each CPU leaves what it read: a marked store, so no read is optimized away. */
static uint64_t sink[CSAN_MAX_CPUS];

static uint64_t plain_write_atomic_val;

static __noinline void plain_write_atomic_writer(uint64_t v)
{
	plain_write_atomic_val = v;
}

static __noinline uint64_t plain_write_atomic_reader(void)
{
	return READ_ONCE(plain_write_atomic_val);
}

static uint64_t plain_write_atomic_step(unsigned int cpu, uint64_t i)
{
	if (cpu == 0) {
		plain_write_atomic_writer(i);
		return 0;
	}
	return plain_write_atomic_reader();
}

static void plain_write_atomic_worker(void *arg)
{
	unsigned int cpu = this_cpu_id(), i;
	uint64_t n = 0, sum = 0;

	while (!READ_ONCE(stop)) {
		for (i = 0; i < CHECK_EVERY; i++)
			sum += plain_write_atomic_step(cpu, n + i);
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
	WRITE_ONCE(sink[cpu], sum);
}

static int plain_write_atomic_run(void)
{
	unsigned int ncpus = csan_ncpus(), cpu;
	uint64_t total = 0, elapsed_us, expected, reports;

	csan_result_add("expect=%s cpus=%u", EXPECT, ncpus);
	if (ncpus < 2) {
		printk("plain-write-atomic: needs two or more CPUs, has %u\n", ncpus);
		csan_result_add("reason=needs-2-cpus");
		return 1;
	}

	t_start_us = uptime_us();
	deadline = deadline_after_us((uint64_t)BUDGET_MS * 1000);
	csan_run_on_cpus(plain_write_atomic_worker, NULL);
	elapsed_us = uptime_us() - t_start_us;
	for (cpu = 0; cpu < ncpus; cpu++)
		total += iterations[cpu];
	expected = csan_reports_sent(0);
	reports = csan_reports_sent(0);
	csan_result_add("expected_reports=%lu reports=%lu first_report_ms=%lu elapsed_ms=%lu "
			"iterations=%lu setup_watchpoints=%lu",
			(unsigned long)expected, (unsigned long)reports,
			(unsigned long)(t_first_report_us / 1000),
			(unsigned long)(elapsed_us / 1000), (unsigned long)total,
			(unsigned long)csan_counter(CSAN_COUNTER_SETUP_WATCHPOINTS));
	csan_counters_print();
	if (reports) {
		printk("plain-write-atomic: unexpected report\n");
		csan_result_add("reason=unexpected-report");
		return 1;
	}
	return 0;
}

CSAN_SCENARIO(
	"plain-write-atomic",
	"zoo: aligned plain word writes racing with READ_ONCE() readers (no report by default)",
	plain_write_atomic_run, 0);
