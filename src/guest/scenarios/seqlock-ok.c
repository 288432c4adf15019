/* seqlock-ok.c: zoo: seqlock readers of data written only inside write-side sections (no report) */
#include "csan.h"
#include "scenario.h"

/*
 * Expected in soft mode (../shared/ZOO.md): no report.  The writer changes seqlock_a and
 * seqlock_b (plain) only inside a write-side section, under a spinlock
 * and between two increments of the sequence count; readers read them
 * plainly and retry when the count moved.  As in Linux's seqlock.h,
 * read_seqbegin() marks the next accesses atomic (kcsan_atomic_next)
 * and the writer's section is a nestable atomic region, so the
 * speculative reads are not races.
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

/* Linux's KCSAN_SEQLOCK_REGION_MAX: accesses that count as marked after read_seqbegin(). */
#define SEQLOCK_REGION_MAX 1000

static spinlock_t seqlock_lock = SPINLOCK_INIT;
static uint32_t seqlock_seq;	      /* marked accesses only */
static uint64_t seqlock_a, seqlock_b; /* invariant: seqlock_b == 2 * seqlock_a */
static bool seqlock_torn;

static inline uint32_t read_seqbegin(void)
{
	uint32_t s;

	while ((s = READ_ONCE(seqlock_seq)) & 1)
		cpu_relax();
	barrier(); /* smp_rmb(): x86 keeps loads in order */
	kcsan_atomic_next(SEQLOCK_REGION_MAX);
	return s;
}

static inline bool read_seqretry(uint32_t s)
{
	barrier();
	kcsan_atomic_next(0);
	return READ_ONCE(seqlock_seq) != s;
}

static __noinline void seqlock_ok_writer(uint64_t v)
{
	spin_lock(&seqlock_lock);
	WRITE_ONCE(seqlock_seq, seqlock_seq + 1);
	barrier(); /* smp_wmb(): x86 keeps stores in order */
	kcsan_nestable_atomic_begin();
	seqlock_a = v;
	seqlock_b = 2 * v;
	kcsan_nestable_atomic_end();
	barrier();
	WRITE_ONCE(seqlock_seq, seqlock_seq + 1);
	spin_unlock(&seqlock_lock);
}

static __noinline uint64_t seqlock_ok_reader(void)
{
	uint64_t a, b;
	uint32_t s;

	do {
		s = read_seqbegin();
		a = seqlock_a;
		b = seqlock_b;
	} while (read_seqretry(s));
	if (b != 2 * a)
		WRITE_ONCE(seqlock_torn, true);
	return a;
}

static uint64_t seqlock_ok_step(unsigned int cpu, uint64_t i)
{
	if (cpu == 0) {
		seqlock_ok_writer(i);
		return 0;
	}
	return seqlock_ok_reader();
}

static void seqlock_ok_worker(void *arg)
{
	unsigned int cpu = this_cpu_id(), i;
	uint64_t n = 0, sum = 0;

	while (!READ_ONCE(stop)) {
		for (i = 0; i < CHECK_EVERY; i++)
			sum += seqlock_ok_step(cpu, n + i);
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

static int seqlock_ok_run(void)
{
	unsigned int ncpus = csan_ncpus(), cpu;
	uint64_t total = 0, elapsed_us, expected, reports;

	csan_result_add("expect=%s cpus=%u", EXPECT, ncpus);
	if (ncpus < 2) {
		printk("seqlock-ok: needs two or more CPUs, has %u\n", ncpus);
		csan_result_add("reason=needs-2-cpus");
		return 1;
	}

	t_start_us = uptime_us();
	deadline = deadline_after_us((uint64_t)BUDGET_MS * 1000);
	csan_run_on_cpus(seqlock_ok_worker, NULL);
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
	if (READ_ONCE(seqlock_torn)) {
		printk("seqlock-ok: a reader saw a torn pair\n");
		csan_result_add("reason=torn-read");
		return 1;
	}
	if (reports) {
		printk("seqlock-ok: unexpected report\n");
		csan_result_add("reason=unexpected-report");
		return 1;
	}
	return 0;
}

CSAN_SCENARIO("seqlock-ok",
	      "zoo: seqlock readers of data written only inside write-side sections (no report)",
	      seqlock_ok_run, 0);
