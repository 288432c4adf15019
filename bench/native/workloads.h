/* workloads.h: both benchmark workloads as one variant's entry points. */
#ifndef CSAN_BENCH_NATIVE_WORKLOADS_H
#define CSAN_BENCH_NATIVE_WORKLOADS_H

/*
 * workload-plain.c, workload-instr.c and workload-tsan.c include this
 * with WORKLOAD_NAME set to their suffix: the same source, compiled
 * without -fsanitize=thread, with it for the csan runtime, and with it
 * for libtsan, gives bench_dense_plain(), bench_dense_instr() and
 * bench_dense_tsan(), and so on.  The locks are lock.c's (its comment
 * says why the TSan program's are instrumented and the others' not).
 */
#include <stdint.h>

void bench_lock(unsigned int i);
void bench_unlock(unsigned int i);

#define WORKLOAD_CAT2(a, b) a##_##b
#define WORKLOAD_CAT(a, b)  WORKLOAD_CAT2(a, b)

uint64_t bench_dense_plain(unsigned int cpu, unsigned int iterations);
uint64_t bench_dense_instr(unsigned int cpu, unsigned int iterations);
uint64_t bench_kernel_plain(unsigned int cpu, unsigned int iterations);
uint64_t bench_kernel_instr(unsigned int cpu, unsigned int iterations);
/* Only in bench-native-tsan (bench-tsan.c), which cannot share a program with the runtime. */
uint64_t bench_dense_tsan(unsigned int cpu, unsigned int iterations);
uint64_t bench_kernel_tsan(unsigned int cpu, unsigned int iterations);

#ifdef WORKLOAD_NAME
#define BENCH_LOCK()   bench_lock(0)
#define BENCH_UNLOCK() bench_unlock(0)
#define KL_LOCK(i)     bench_lock(i)
#define KL_UNLOCK(i)   bench_unlock(i)
#include "guest/scenarios/bench-loop.h"
#include "kernel-like.h"

#define MAX_CPUS 64
static struct bench_cpu dense_cpus[MAX_CPUS];
static uint64_t dense_shared[BENCH_TABLE];
static struct kl_cpu kernel_cpus[MAX_CPUS];
static struct kl_table kernel_table;

uint64_t WORKLOAD_CAT(bench_dense, WORKLOAD_NAME)(unsigned int cpu, unsigned int iterations)
{
	return bench_loop(&dense_cpus[cpu % MAX_CPUS], cpu, iterations, dense_shared);
}

/* The table is reset by whoever runs first: each run starts empty. */
uint64_t WORKLOAD_CAT(bench_kernel, WORKLOAD_NAME)(unsigned int cpu, unsigned int iterations)
{
	struct kl_cpu *c = &kernel_cpus[cpu % MAX_CPUS];
	uint64_t sum = kl_loop(c, cpu, iterations, &kernel_table);
	unsigned int i;

	/* Leave the table without this CPU's entries for the next run. */
	for (i = 0; i < KL_ENTRIES && i < iterations; i++) {
		bench_lock(kl_hash(c->entries[i].key));
		kl_remove(&kernel_table, &c->entries[i]);
		bench_unlock(kl_hash(c->entries[i].key));
	}
	c->head = c->tail = 0;
	return sum;
}
#endif

#endif /* CSAN_BENCH_NATIVE_WORKLOADS_H */
