/* value-unchanged.c: zoo: concurrent plain writes that store the value already there. */
#include "csan.h"
#include "scenario.h"

/*
 * Expected in soft mode (../shared/ZOO.md): no report by default.  Both CPUs read
 * value_unchanged_val plainly and store back the value it already holds
 * (a plain 8-byte write, assumed atomic): a watched read sees the other
 * CPU's write run into it, but the value never changes, and with
 * csan.report_value_change_only=1 (the default) such a race is not
 * reported.  With the knob off it is.
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

static uint64_t value_unchanged_val = 42; /* plain accesses, never changes */

static __noinline uint64_t value_unchanged_store(void)
{
	uint64_t v = value_unchanged_val;

	value_unchanged_val = 42;
	return v;
}

static uint64_t value_unchanged_step(unsigned int cpu, uint64_t i)
{
	return value_unchanged_store();
}

static void value_unchanged_worker(void *arg)
{
	unsigned int cpu = this_cpu_id(), i;
	uint64_t n = 0, sum = 0;

	while (!READ_ONCE(stop)) {
		for (i = 0; i < CHECK_EVERY; i++)
			sum += value_unchanged_step(cpu, n + i);
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

static int value_unchanged_run(void)
{
	unsigned int ncpus = csan_ncpus(), cpu;
	uint64_t total = 0, elapsed_us, expected, reports;

	csan_result_add("expect=%s cpus=%u", EXPECT, ncpus);
	if (ncpus < 2) {
		printk("value-unchanged: needs two or more CPUs, has %u\n", ncpus);
		csan_result_add("reason=needs-2-cpus");
		return 1;
	}

	t_start_us = uptime_us();
	deadline = deadline_after_us((uint64_t)BUDGET_MS * 1000);
	csan_run_on_cpus(value_unchanged_worker, NULL);
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
		printk("value-unchanged: unexpected report\n");
		csan_result_add("reason=unexpected-report");
		return 1;
	}
	return 0;
}

CSAN_SCENARIO(
	"value-unchanged",
	"zoo: concurrent plain writes that store the value already there (no report by default)",
	value_unchanged_run, 0);
