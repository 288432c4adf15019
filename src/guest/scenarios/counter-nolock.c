/* counter-nolock.c: zoo: CPUs increment a shared counter with plain accesses, no lock. */
#include "csan.h"
#include "scenario.h"

/*
 * Expected in soft mode (../shared/ZOO.md): a data race with two stacks,
 * "data-race in counter_nolock_inc / counter_nolock_inc".  With gcc the
 * increment is a plain 8-byte read and a plain 8-byte write; the write
 * is assumed atomic by default (csan.assume_plain_writes_atomic=1), so it
 * is the read that gets watched, and another CPU's write runs into it and
 * changes the value.  With clang it is one compound read-write.
 */
#define EXPECT "data-race"

/*
 * Until a report or this budget.  Under PVM's instruction emulator
 * (~1.6 M guest instructions/s per vCPU) the first report comes within a
 * second or two; the budget leaves room for a loaded host.
 */
#define BUDGET_MS 30000
/* Increments between looks at the clock and the report counter. */
#define CHECK_EVERY 16

/* Instrumented accesses per increment: gcc reads and writes, clang does both at once. */
#ifdef __clang__
#define ACCESSES_PER_INC 1
#else
#define ACCESSES_PER_INC 2
#endif

static uint64_t counter; /* the racy variable: plain accesses only */
static bool stop;	 /* marked: READ_ONCE/WRITE_ONCE */
static uint64_t deadline;
static uint64_t t_start_us, t_first_report_us;
static uint64_t iterations[CSAN_MAX_CPUS]; /* each CPU writes only its own */

/* Its own function, so both stacks of the report name it. */
static __noinline void counter_nolock_inc(void)
{
	counter++;
}

static void counter_worker(void *arg)
{
	uint64_t n = 0;
	unsigned int i;

	while (!READ_ONCE(stop)) {
		for (i = 0; i < CHECK_EVERY; i++)
			counter_nolock_inc();
		n += CHECK_EVERY;
		if (csan_reports_sent(CSAN_REPORT_DATA_RACE)) {
			uint64_t zero = 0, now = uptime_us() - t_start_us;

			/* The first CPU to see it records the time (a marked CAS). */
			__atomic_compare_exchange_n(&t_first_report_us, &zero, now, false,
						    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
			WRITE_ONCE(stop, true);
		} else if (deadline_passed(deadline)) {
			WRITE_ONCE(stop, true);
		}
	}
	iterations[this_cpu_id()] = n;
}

static int counter_nolock_run(void)
{
	unsigned int ncpus = csan_ncpus(), cpu;
	uint64_t total = 0, elapsed_us, races;

	csan_result_add("expect=%s cpus=%u", EXPECT, ncpus);
	if (ncpus < 2) {
		printk("counter-nolock: needs two or more CPUs, has %u\n", ncpus);
		csan_result_add("reason=needs-2-cpus");
		return 1;
	}

	t_start_us = uptime_us();
	deadline = deadline_after_us((uint64_t)BUDGET_MS * 1000);
	csan_run_on_cpus(counter_worker, NULL);
	elapsed_us = uptime_us() - t_start_us;

	for (cpu = 0; cpu < ncpus; cpu++)
		total += iterations[cpu];
	races = csan_reports_sent(CSAN_REPORT_DATA_RACE);
	/*
	 * An unknown-origin report may come first: the other CPU's write
	 * was checked just before the watchpoint went up and landed during
	 * the watch.  It is a true report, but not the one this row expects.
	 */
	csan_result_add(
		"races=%lu unknown_origin=%lu reports=%lu first_report_ms=%lu "
		"elapsed_ms=%lu accesses=%lu accesses_per_s=%lu",
		(unsigned long)races, (unsigned long)csan_reports_sent(CSAN_REPORT_UNKNOWN_ORIGIN),
		(unsigned long)csan_reports_sent(0), (unsigned long)(t_first_report_us / 1000),
		(unsigned long)(elapsed_us / 1000), (unsigned long)(ACCESSES_PER_INC * total),
		(unsigned long)(elapsed_us ? ACCESSES_PER_INC * total * 1000000 / elapsed_us : 0));
	csan_counters_print();
	if (!races) {
		printk("counter-nolock: no data race reported within %u ms\n", BUDGET_MS);
		csan_result_add("reason=no-report");
		return 1;
	}
	return 0;
}

CSAN_SCENARIO("counter-nolock",
	      "zoo: CPUs increment a shared counter with plain accesses and no lock (data race)",
	      counter_nolock_run, 0);
