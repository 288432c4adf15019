/* bench-loop.h: the slowdown benchmark's access-dense loop, kernel-neutral. */
#ifndef CSAN_BENCH_LOOP_H
#define CSAN_BENCH_LOOP_H

/*
 * Shared by the guest's bench scenarios (bench-workload.h) and the
 * native benchmark (bench/native/), so both measure the same code.  The
 * includer defines BENCH_LOCK() and BENCH_UNLOCK() (an uninstrumented
 * lock around the shared table).  The mix is per-CPU table updates, a
 * linked-list walk, and a lock-protected shared table every few
 * iterations: about six memory accesses per iteration and little else,
 * so it shows the fast path's cost at its highest.  Race-free.
 */
#include <stddef.h>
#include <stdint.h>

#define BENCH_TABLE	   256u
#define BENCH_LIST	   32u
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

static __attribute__((noinline)) uint64_t bench_walk(struct bench_node *n)
{
	uint64_t sum = 0;

	for (; n; n = n->next)
		sum += n->value++;
	return sum;
}

/* @iterations rounds for CPU @cpu on its own @c and the @shared table. */
static uint64_t bench_loop(struct bench_cpu *c, unsigned int cpu, unsigned int iterations,
			   uint64_t *shared)
{
	uint64_t x = cpu + 1, sum = 0;
	unsigned int i;

	for (i = 0; i < BENCH_LIST; i++) {
		c->nodes[i].next = i + 1 < BENCH_LIST ? &c->nodes[i + 1] : NULL;
		c->nodes[i].value = i;
	}
	for (i = 0; i < iterations; i++) {
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
			BENCH_LOCK();
			shared[idx] += sum;
			BENCH_UNLOCK();
		}
	}
	c->checksum = sum;
	return sum;
}

#endif /* CSAN_BENCH_LOOP_H */
