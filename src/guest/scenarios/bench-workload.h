/* bench-workload.h: one race-free workload, built instrumented and not, for the slowdown benchmark. */
#ifndef CSAN_GUEST_BENCH_WORKLOAD_H
#define CSAN_GUEST_BENCH_WORKLOAD_H

/*
 * Included by exactly one file in scenarios/ (built with -fsanitize=thread)
 * and one in scenarios/uninstr/ (built without), so the two scenarios run
 * the same code and bench/slowdown.sh can compare them in one run.  The
 * mix is kernel-like: per-CPU table updates, a linked-list walk, and a
 * spinlock-protected shared table every few iterations.  It is race-free,
 * so the instrumented build measures the runtime's cost, not reports.
 */
#include "scenario.h"
#include "spinlock.h"
#include "percpu.h"
#include "smp.h"
#include "tsc.h"

#define BENCH_ITERATIONS 200000u
#define BENCH_TABLE 256u
#define BENCH_LIST 32u
#define BENCH_SHARED_EVERY 64u

struct bench_node {
	struct bench_node *next;
	uint64_t value;
};

struct bench_cpu {
	uint64_t table[BENCH_TABLE];
	struct bench_node nodes[BENCH_LIST];
	uint64_t checksum;
} __attribute__((aligned(64)));

static struct bench_cpu bench_cpus[CSAN_MAX_CPUS];
static uint64_t bench_shared[BENCH_TABLE];
static spinlock_t bench_lock;

static __noinline uint64_t bench_walk(struct bench_node *n)
{
	uint64_t sum = 0;

	for (; n; n = n->next)
		sum += n->value++;
	return sum;
}

static void bench_worker(void *arg)
{
	struct bench_cpu *c = &bench_cpus[this_cpu_id()];
	uint64_t x = this_cpu_id() + 1, sum = 0;
	unsigned int i;

	(void)arg;
	for (i = 0; i < BENCH_LIST; i++) {
		c->nodes[i].next = i + 1 < BENCH_LIST ? &c->nodes[i + 1] : NULL;
		c->nodes[i].value = i;
	}
	for (i = 0; i < BENCH_ITERATIONS; i++) {
		unsigned int idx;

		x ^= x << 13; /* xorshift: cheap, deterministic indices */
		x ^= x >> 7;
		x ^= x << 17;
		idx = x % BENCH_TABLE;
		c->table[idx] += i;
		sum += c->table[(idx * 7) % BENCH_TABLE];
		if (i % BENCH_LIST == 0)
			sum += bench_walk(c->nodes);
		if (i % BENCH_SHARED_EVERY == 0) {
			spin_lock(&bench_lock);
			bench_shared[idx] += sum;
			spin_unlock(&bench_lock);
		}
	}
	c->checksum = sum;
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
