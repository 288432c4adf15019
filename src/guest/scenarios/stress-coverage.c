/* stress-coverage.c: zoo: ASSERT_EXCLUSIVE_ACCESS() as a coverage switch on three functions. */
#include "csan.h"
#include "scenario.h"
#include "zoo.h"

/*
 * The pattern from the KCSAN article "Concurrency bugs should fear the
 * big bad data-race detector (part 2)": stress_foo is updated locklessly
 * by a cmpxchg() loop whose first read is a data_race() (the cmpxchg
 * checks it), by xchg() and read with READ_ONCE().  All of that is
 * race-free.  To learn whether a stress test really runs each pair of
 * these functions concurrently, each one starts with
 * ASSERT_EXCLUSIVE_ACCESS(stress_foo) under a coverage switch: then every
 * pair that does overlap is reported.
 *
 * Expected (../shared/ZOO.md), in both modes, with the switch on: an
 * "assert: race" report for every pair of the three functions.  The row
 * runs the pairs one after the other, one function on CPU 0 and one on
 * CPU 1, and counts a pair as seen when an assert report arrives while
 * it runs; the result line lists the pairs seen.  Between pairs both CPUs
 * stop calling the functions, so no report lands on the wrong pair.
 */

/* The coverage switch; a stress build turns it on, a production one would not. */
#define STRESS_COVERAGE 1

static int stress_foo;

static __noinline int stress_xor_shift(int shift, int mask)
{
	int old, new, newold;

	if (STRESS_COVERAGE)
		ASSERT_EXCLUSIVE_ACCESS(stress_foo);
	newold = data_race(stress_foo); /* checked by the cmpxchg below */
	do {
		old = newold;
		new = (old << shift) ^ mask;
		newold = old;
		__atomic_compare_exchange_n(&stress_foo, &newold, new, false, __ATOMIC_SEQ_CST,
					    __ATOMIC_SEQ_CST);
	} while (newold != old);
	return old;
}

static __noinline int stress_update(int v)
{
	if (STRESS_COVERAGE)
		ASSERT_EXCLUSIVE_ACCESS(stress_foo);
	return __atomic_exchange_n(&stress_foo, v, __ATOMIC_SEQ_CST);
}

static __noinline int stress_read(void)
{
	if (STRESS_COVERAGE)
		ASSERT_EXCLUSIVE_ACCESS(stress_foo);
	return READ_ONCE(stress_foo);
}

enum stress_fn { STRESS_XOR_SHIFT, STRESS_UPDATE, STRESS_READ };
static const char *const stress_fn_name[] = {
	[STRESS_XOR_SHIFT] = "stress_xor_shift",
	[STRESS_UPDATE] = "stress_update",
	[STRESS_READ] = "stress_read",
};

static int stress_call(enum stress_fn fn, uint64_t i)
{
	switch (fn) {
	case STRESS_XOR_SHIFT: return stress_xor_shift((int)(i & 3) + 1, (int)i);
	case STRESS_UPDATE: return stress_update((int)i);
	default: return stress_read();
	}
}

/* The pairs, in the order they run: CPU 0 calls .a, CPU 1 calls .b. */
static const struct {
	enum stress_fn a, b;
} stress_pairs[] = {
	{ STRESS_XOR_SHIFT, STRESS_UPDATE },
	{ STRESS_XOR_SHIFT, STRESS_READ },
	{ STRESS_UPDATE, STRESS_READ },
};
#define STRESS_NPAIRS (sizeof(stress_pairs) / sizeof(stress_pairs[0]))
/* How long one pair may run without a report before the next one's turn. */
#define STRESS_PAIR_MS 15000

/*
 * The schedule, advanced by CPU 0 only: phase 2k is the pause before
 * pair k (CPU 1 acknowledges it by copying it to stress_ack), 2k+1 runs
 * pair k, 2 * STRESS_NPAIRS means all done.
 */
static unsigned int stress_phase, stress_ack;
static uint64_t stress_pair_deadline, stress_pair_base;
static bool stress_seen[STRESS_NPAIRS];

static void stress_cpu0(uint64_t i, int *sum)
{
	unsigned int phase = READ_ONCE(stress_phase), k = phase / 2;
	uint64_t asserts;

	if (k >= STRESS_NPAIRS)
		return;
	if (!(phase & 1)) {
		/* Paused: start pair k once CPU 1 is out of the previous pair's function. */
		if (READ_ONCE(stress_ack) != phase)
			return;
		stress_pair_base = csan_reports_sent(CSAN_REPORT_ASSERT);
		stress_pair_deadline = deadline_after_us((uint64_t)STRESS_PAIR_MS * 1000);
		WRITE_ONCE(stress_phase, phase + 1);
		return;
	}
	*sum += stress_call(stress_pairs[k].a, i);
	asserts = csan_reports_sent(CSAN_REPORT_ASSERT);
	if (asserts != stress_pair_base)
		WRITE_ONCE(stress_seen[k], true);
	if (asserts != stress_pair_base || deadline_passed(stress_pair_deadline))
		WRITE_ONCE(stress_phase, phase + 1);
}

static uint64_t stress_coverage_step(unsigned int cpu, uint64_t i)
{
	unsigned int phase;
	int sum = 0;

	if (cpu == 0) {
		stress_cpu0(i, &sum);
	} else if (cpu == 1) {
		phase = READ_ONCE(stress_phase);
		if ((phase & 1) && phase / 2 < STRESS_NPAIRS)
			sum += stress_call(stress_pairs[phase / 2].b, i);
		WRITE_ONCE(stress_ack, phase);
	}
	return (uint64_t)sum;
}

static bool stress_coverage_done(void)
{
	return READ_ONCE(stress_phase) >= 2 * STRESS_NPAIRS;
}

/* Which pairs were seen, e.g. pairs=stress_update/stress_xor_shift,... */
static bool stress_coverage_finish(uint64_t iterations)
{
	char list[128];
	size_t n = 0;
	unsigned int k, seen = 0;

	list[0] = '\0';
	for (k = 0; k < STRESS_NPAIRS; k++) {
		const char *a = stress_fn_name[stress_pairs[k].a];
		const char *b = stress_fn_name[stress_pairs[k].b];

		if (!READ_ONCE(stress_seen[k]))
			continue;
		seen++;
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s/%s", n ? "," : "", a, b);
	}
	csan_result_add("pairs_seen=%u/%u pairs=%s", seen, (unsigned int)STRESS_NPAIRS,
			seen ? list : "none");
	if (seen != STRESS_NPAIRS) {
		printk("stress-coverage: %u of %u pairs reported\n", seen,
		       (unsigned int)STRESS_NPAIRS);
		csan_result_add("reason=pairs-missing");
		return false;
	}
	return true;
}

static const struct zoo_row stress_coverage_row = {
	.step = stress_coverage_step,
	.finish = stress_coverage_finish,
	.done = stress_coverage_done,
	.min_cpus = 2,
	.budget_ms = STRESS_NPAIRS * STRESS_PAIR_MS + 5000,
	.expect = { .soft = ZOO_ASSERT, .hw = ZOO_ASSERT },
	.also_kinds = ZOO_ONE_SIDED,
};

ZOO_SCENARIO("stress-coverage",
	     "zoo: ASSERT_EXCLUSIVE_ACCESS() coverage switch in cmpxchg/xchg/READ_ONCE functions "
	     "(assert: race for every pair)",
	     stress_coverage_row);
