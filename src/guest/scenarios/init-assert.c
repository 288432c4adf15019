/* init-assert.c: zoo: single-threaded init with ASSERT_EXCLUSIVE_ACCESS(), then marked workers. */
#include "csan.h"
#include "scenario.h"

/*
 * Expected in soft mode (../shared/ZOO.md): no report.  The object is
 * initialized single-threaded with plain writes and
 * ASSERT_EXCLUSIVE_ACCESS(), and only then are the workers started, which
 * use xchg() (__atomic_exchange_n) and READ_ONCE() only.
 */
#define EXPECT "none"

/* Until a report (a failure) or this budget (ms). */
#define BUDGET_MS   3000
#define CHECK_EVERY 16

static bool stop;
static uint64_t deadline;
static uint64_t t_start_us, t_first_report_us;
static uint64_t iterations[CSAN_MAX_CPUS];
/* Where each CPU leaves what it read: a marked store, so no read is optimized away. */
static uint64_t sink[CSAN_MAX_CPUS];

struct init_obj {
	uint64_t state; /* after init: xchg() and READ_ONCE() only */
	uint64_t gen;	/* after init: READ_ONCE() only */
};
static struct init_obj init_obj;

/*
 * Single-threaded init: plain writes, then the assertion that nobody
 * else can see the object yet.  Runs on the boot CPU before any worker
 * starts (csan_run_on_cpus() publishes it to them).
 */
static __noinline void init_assert_init(void)
{
	init_obj.state = 1;
	init_obj.gen = 1;
	ASSERT_EXCLUSIVE_ACCESS(init_obj);
}

static __noinline uint64_t init_assert_update(uint64_t v)
{
	return __atomic_exchange_n(&init_obj.state, v, __ATOMIC_SEQ_CST);
}

static __noinline uint64_t init_assert_reader(void)
{
	return READ_ONCE(init_obj.state) + READ_ONCE(init_obj.gen);
}

static uint64_t init_assert_step(unsigned int cpu, uint64_t i)
{
	if ((cpu == 0) == ((i & 3) != 0))
		return init_assert_update(i);
	return init_assert_reader();
}

static void init_assert_worker(void *arg)
{
	unsigned int cpu = this_cpu_id(), i;
	uint64_t n = 0, sum = 0;

	while (!READ_ONCE(stop)) {
		for (i = 0; i < CHECK_EVERY; i++)
			sum += init_assert_step(cpu, n + i);
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

static int init_assert_run(void)
{
	unsigned int ncpus = csan_ncpus(), cpu;
	uint64_t total = 0, elapsed_us, expected, reports;

	csan_result_add("expect=%s cpus=%u", EXPECT, ncpus);
	if (ncpus < 2) {
		printk("init-assert: needs two or more CPUs, has %u\n", ncpus);
		csan_result_add("reason=needs-2-cpus");
		return 1;
	}

	init_assert_init();
	t_start_us = uptime_us();
	deadline = deadline_after_us((uint64_t)BUDGET_MS * 1000);
	csan_run_on_cpus(init_assert_worker, NULL);
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
		printk("init-assert: unexpected report\n");
		csan_result_add("reason=unexpected-report");
		return 1;
	}
	return 0;
}

CSAN_SCENARIO("init-assert",
	      "zoo: single-threaded init with ASSERT_EXCLUSIVE_ACCESS(), then xchg()/READ_ONCE() "
	      "workers (no report)",
	      init_assert_run, 0);
