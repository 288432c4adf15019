/* init-assert-early.c: zoo: as init-assert, but a worker runs before init finishes. */
#include "csan.h"
#include "scenario.h"

/*
 * Expected in soft mode (../shared/ZOO.md): "assert: race in
 * init_assert_early_init / init_assert_early_update" (in either order).
 * As init-assert, but a worker is already running while the object is
 * (re)initialized: the other CPU's xchg() runs into the watchpoint of the
 * init's ASSERT_EXCLUSIVE_ACCESS().  The init repeats (each time with the
 * worker already started) until the assertion is watched at the right
 * moment; it is the only access the sampling counts on its CPU.
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

struct early_obj {
	uint64_t state; /* after init: xchg() and READ_ONCE() only */
	uint64_t gen;	/* after init: READ_ONCE() only */
};
static struct early_obj early_obj;

/*
 * The init: plain writes, then the assertion that nobody else can see
 * the object yet, which is false here.
 */
static __noinline void init_assert_early_init(void)
{
	early_obj.state = 1;
	early_obj.gen = 1;
	ASSERT_EXCLUSIVE_ACCESS(early_obj);
}

static __noinline uint64_t init_assert_early_update(uint64_t v)
{
	return __atomic_exchange_n(&early_obj.state, v, __ATOMIC_SEQ_CST);
}

static __noinline uint64_t init_assert_early_reader(void)
{
	return READ_ONCE(early_obj.state) + READ_ONCE(early_obj.gen);
}

static uint64_t init_assert_early_step(unsigned int cpu, uint64_t i)
{
	if (cpu == 0) {
		init_assert_early_init();
		return 0;
	}
	/* The worker started too early: it uses the object during init. */
	return init_assert_early_update(i) + init_assert_early_update(i + 1) +
	       init_assert_early_update(i + 2) + init_assert_early_reader();
}

static void init_assert_early_worker(void *arg)
{
	unsigned int cpu = this_cpu_id(), i;
	uint64_t n = 0, sum = 0;

	while (!READ_ONCE(stop)) {
		for (i = 0; i < CHECK_EVERY; i++)
			sum += init_assert_early_step(cpu, n + i);
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

static int init_assert_early_run(void)
{
	unsigned int ncpus = csan_ncpus(), cpu;
	uint64_t total = 0, elapsed_us, expected, reports;

	csan_result_add("expect=%s cpus=%u", EXPECT, ncpus);
	if (ncpus < 2) {
		printk("init-assert-early: needs two or more CPUs, has %u\n", ncpus);
		csan_result_add("reason=needs-2-cpus");
		return 1;
	}

	t_start_us = uptime_us();
	deadline = deadline_after_us((uint64_t)BUDGET_MS * 1000);
	csan_run_on_cpus(init_assert_early_worker, NULL);
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
		printk("init-assert-early: no assert reported within %u ms\n", BUDGET_MS);
		csan_result_add("reason=no-report");
		return 1;
	}
	return 0;
}

CSAN_SCENARIO("init-assert-early",
	      "zoo: as init-assert, but a worker runs before init finishes (assert: race)",
	      init_assert_early_run, 0);
