/* bits.c: zoo: ASSERT_EXCLUSIVE_BITS(): allowed changes of other bits, a buggy owned-bit writer. */
#include "csan.h"
#include "scenario.h"

/*
 * Expected in soft mode (../shared/ZOO.md): "assert: race in bits_owner /
 * bits_buggy_writer" (in either order) with a "bits changed: ... with mask"
 * line.  For the first BITS_FINE_MS only bits outside the owner's mask
 * change (bits_fine_writer), which must not be reported; then the buggy
 * writer flips an owned bit, which must be.
 */
#define EXPECT "assert"

/* Until an assert report or this budget (ms). */
#define BUDGET_MS   50000
#define CHECK_EVERY 16
/* The allowed-changes-only phase. */
#define BITS_FINE_MS 3000

static bool stop;
static uint64_t deadline;
static uint64_t t_start_us, t_first_report_us;
static uint64_t iterations[CSAN_MAX_CPUS];
/* Where each CPU leaves what it read: a marked store, so no read is optimized away. */
static uint64_t sink[CSAN_MAX_CPUS];

#define BITS_OWNED_MASK 0x00ffUL /* the owner's: nobody else may change them */
#define BITS_OTHER	0xff00UL /* anybody's: change concurrently at will */

static unsigned long bits_flags;
/* Fine changes only until then; then only the buggy writer. */
static uint64_t bits_phase2;
static uint64_t bits_fine_phase_reports;
static bool bits_in_phase2;

static __noinline unsigned long bits_owner(void)
{
	ASSERT_EXCLUSIVE_BITS(bits_flags, BITS_OWNED_MASK);
	return bits_flags & BITS_OWNED_MASK;
}

/* Allowed: flips bits outside the owner's mask. */
static __noinline void bits_fine_writer(void)
{
	__atomic_fetch_xor(&bits_flags, BITS_OTHER, __ATOMIC_RELAXED);
}

/* The bug: flips an owned bit. */
static __noinline void bits_buggy_writer(void)
{
	__atomic_fetch_xor(&bits_flags, 0x1UL, __ATOMIC_RELAXED);
}

static uint64_t bits_step(unsigned int cpu, uint64_t i)
{
	if (cpu == 0)
		return bits_owner();
	if (!READ_ONCE(bits_in_phase2)) {
		if (!deadline_passed(bits_phase2)) {
			bits_fine_writer();
			return 0;
		}
		WRITE_ONCE(bits_fine_phase_reports, csan_reports_sent(0));
		WRITE_ONCE(bits_in_phase2, true);
	}
	/* Dense buggy writes (an even number: the owned bit ends as it began). */
	bits_buggy_writer();
	bits_buggy_writer();
	bits_buggy_writer();
	bits_buggy_writer();
	return 0;
}

static void bits_worker(void *arg)
{
	unsigned int cpu = this_cpu_id(), i;
	uint64_t n = 0, sum = 0;

	while (!READ_ONCE(stop)) {
		for (i = 0; i < CHECK_EVERY; i++)
			sum += bits_step(cpu, n + i);
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

static int bits_run(void)
{
	unsigned int ncpus = csan_ncpus(), cpu;
	uint64_t total = 0, elapsed_us, expected, reports;

	csan_result_add("expect=%s cpus=%u", EXPECT, ncpus);
	if (ncpus < 2) {
		printk("bits: needs two or more CPUs, has %u\n", ncpus);
		csan_result_add("reason=needs-2-cpus");
		return 1;
	}

	bits_phase2 = deadline_after_us((uint64_t)BITS_FINE_MS * 1000);
	t_start_us = uptime_us();
	deadline = deadline_after_us((uint64_t)BUDGET_MS * 1000);
	csan_run_on_cpus(bits_worker, NULL);
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
	csan_result_add("fine_phase_reports=%lu",
			(unsigned long)READ_ONCE(bits_fine_phase_reports));
	csan_counters_print();
	if (READ_ONCE(bits_fine_phase_reports)) {
		printk("bits: reported while only allowed bits changed\n");
		csan_result_add("reason=false-positive");
		return 1;
	}
	if (!expected) {
		printk("bits: no assert reported within %u ms\n", BUDGET_MS);
		csan_result_add("reason=no-report");
		return 1;
	}
	return 0;
}

CSAN_SCENARIO("bits",
	      "zoo: ASSERT_EXCLUSIVE_BITS(): other bits change (fine), a buggy writer flips an "
	      "owned bit (assert: race)",
	      bits_run, 0);
