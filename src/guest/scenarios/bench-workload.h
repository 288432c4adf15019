/* bench-workload.h: one race-free workload, built instrumented and not, for the slowdown benchmark. */
#ifndef CSAN_GUEST_BENCH_WORKLOAD_H
#define CSAN_GUEST_BENCH_WORKLOAD_H

/*
 * Included by exactly one file in scenarios/ (built with -fsanitize=thread)
 * and one in scenarios/uninstr/ (built without), so the two scenarios run
 * the same code and bench/slowdown.sh can compare them in one run.  The
 * loop itself is bench-loop.h, which the native benchmark (bench/native/)
 * runs too.  It is race-free, so the instrumented build measures the
 * runtime's cost, not reports.
 */
#include "scenario.h"
#include "spinlock.h"
#include "percpu.h"
#include "smp.h"
#include "tsc.h"

#define BENCH_ITERATIONS 200000u

static spinlock_t bench_lock;
#define BENCH_LOCK()   spin_lock(&bench_lock)
#define BENCH_UNLOCK() spin_unlock(&bench_lock)
#include "bench-loop.h"

static struct bench_cpu bench_cpus[CSAN_MAX_CPUS];
static uint64_t bench_shared[BENCH_TABLE];

static void bench_worker(void *arg)
{
	(void)arg;
	bench_loop(&bench_cpus[this_cpu_id()], this_cpu_id(), BENCH_ITERATIONS, bench_shared);
}

static int bench_run(void)
{
	uint64_t t0 = uptime_us(), elapsed, sum = 0;
	unsigned int cpu;

	csan_run_on_cpus(bench_worker, NULL);
	elapsed = uptime_us() - t0;
	for (cpu = 0; cpu < csan_ncpus(); cpu++)
		sum ^= bench_cpus[cpu].checksum;
	csan_result_add("cpus=%u iterations=%u elapsed_us=%lu checksum=%lx", csan_ncpus(),
			BENCH_ITERATIONS, (unsigned long)elapsed, (unsigned long)sum);
	return 0;
}

#endif /* CSAN_GUEST_BENCH_WORKLOAD_H */
