/* rcu-leak.c: zoo: a reader leaks an RCU-protected pointer out of its read-side section. */
#include "csan.h"
#include "scenario.h"
#include "zoo.h"

/*
 * Expected (../shared/ZOO.md), in both modes: "assert: race in
 * rcu_leak_leaky_reader / rcu_leak_reclaim" (in either order).
 *
 * A minimal RCU: readers bracket their use of the list with
 * rcu_leak_read_lock()/unlock(), which bump a per-CPU count (odd while
 * inside); the updater (CPU 0) splices the whole list out, waits for a
 * grace period (every CPU seen outside a read-side section since), and
 * only then asserts with ASSERT_EXCLUSIVE_ACCESS() that nobody can still
 * reach the elements, before reusing them.  The good reader only touches
 * elements inside its section and is never reported; the leaky reader
 * keeps the pointer after rcu_leak_read_unlock() and runs into the
 * assertion.  All list accesses are marked, so the assertions are the
 * only accesses that get watched.
 */

#define RCU_LEAK_NELEMS 4

struct rcu_leak_elem {
	struct rcu_leak_elem *next;
	uint64_t data;
};

static struct rcu_leak_elem rcu_leak_elems[RCU_LEAK_NELEMS];
static struct rcu_leak_elem *rcu_leak_head; /* rcu_assign_pointer/rcu_dereference */
/* Per-CPU read-side nesting count: odd inside a section. */
static uint64_t rcu_leak_nest[CSAN_MAX_CPUS];

/*
 * Locked read-modify-writes, full barriers on x86: the reader's count
 * must be visible before it reads the head, and the updater's splice
 * before it reads the counts, or a grace period could miss a reader.
 */
static inline void rcu_leak_read_lock(unsigned int cpu)
{
	__atomic_fetch_add(&rcu_leak_nest[cpu], 1, __ATOMIC_SEQ_CST);
}

static inline void rcu_leak_read_unlock(unsigned int cpu)
{
	__atomic_fetch_add(&rcu_leak_nest[cpu], 1, __ATOMIC_SEQ_CST);
}

/* Wait until every other CPU that was inside a section has left it. */
static void rcu_leak_synchronize(void)
{
	unsigned int cpu, me = this_cpu_id(), n = csan_ncpus();

	for (cpu = 0; cpu < n; cpu++) {
		uint64_t s = __atomic_load_n(&rcu_leak_nest[cpu], __ATOMIC_SEQ_CST);

		if (cpu == me || !(s & 1))
			continue;
		while (__atomic_load_n(&rcu_leak_nest[cpu], __ATOMIC_SEQ_CST) == s)
			cpu_relax();
	}
}

/* After the grace period: nobody may hold an element any more; reuse them. */
static __noinline void rcu_leak_reclaim(uint64_t gen)
{
	unsigned int i;

	for (i = 0; i < RCU_LEAK_NELEMS; i++) {
		ASSERT_EXCLUSIVE_ACCESS(rcu_leak_elems[i]);
		WRITE_ONCE(rcu_leak_elems[i].data, gen);
		WRITE_ONCE(rcu_leak_elems[i].next,
			   i + 1 < RCU_LEAK_NELEMS ? &rcu_leak_elems[i + 1] : NULL);
	}
}

/* Splice the list out, wait a grace period, reclaim, publish it again. */
static __noinline void rcu_leak_updater(uint64_t gen)
{
	(void)__atomic_exchange_n(&rcu_leak_head, NULL, __ATOMIC_SEQ_CST);
	rcu_leak_synchronize();
	rcu_leak_reclaim(gen);
	__atomic_store_n(&rcu_leak_head, &rcu_leak_elems[0], __ATOMIC_RELEASE);
}

static __noinline uint64_t rcu_leak_good_reader(unsigned int cpu)
{
	struct rcu_leak_elem *e;
	uint64_t sum = 0;

	rcu_leak_read_lock(cpu);
	for (e = __atomic_load_n(&rcu_leak_head, __ATOMIC_ACQUIRE); e; e = READ_ONCE(e->next))
		sum += READ_ONCE(e->data);
	rcu_leak_read_unlock(cpu);
	return sum;
}

/* Passes the leaky reader makes over what it should have let go of. */
#define RCU_LEAK_PASSES 16

/* The bug: the pointer outlives the read-side section, and is used for a while. */
static __noinline uint64_t rcu_leak_leaky_reader(unsigned int cpu)
{
	struct rcu_leak_elem *first, *e;
	uint64_t sum = 0;
	unsigned int pass;

	rcu_leak_read_lock(cpu);
	first = __atomic_load_n(&rcu_leak_head, __ATOMIC_ACQUIRE);
	rcu_leak_read_unlock(cpu);
	for (pass = 0; pass < RCU_LEAK_PASSES; pass++)
		for (e = first; e; e = READ_ONCE(e->next))
			sum += READ_ONCE(e->data);
	return sum;
}

/*
 * CPU 0 updates one step in UPDATE_EVERY and reads (correctly) in the
 * others, so the list stays published most of the time and readers find
 * it; the others read, correctly and leakily.
 */
#define RCU_LEAK_UPDATE_EVERY 4

static uint64_t rcu_leak_step(unsigned int cpu, uint64_t i)
{
	if (cpu == 0) {
		if (i % RCU_LEAK_UPDATE_EVERY == RCU_LEAK_UPDATE_EVERY - 1)
			rcu_leak_updater(i);
		return rcu_leak_good_reader(cpu);
	}
	return rcu_leak_good_reader(cpu) + rcu_leak_leaky_reader(cpu);
}

static void rcu_leak_setup(void)
{
	rcu_leak_reclaim(0);
	__atomic_store_n(&rcu_leak_head, &rcu_leak_elems[0], __ATOMIC_RELEASE);
}

static const struct zoo_row rcu_leak_row = {
	.step = rcu_leak_step,
	.setup = rcu_leak_setup,
	.min_cpus = 2,
	.budget_ms = 50000,
	.expect = { .soft = ZOO_ASSERT, .hw = ZOO_ASSERT },
};

ZOO_SCENARIO("rcu-leak",
	     "zoo: a reader keeps an RCU-protected pointer past its read-side section (assert: "
	     "race)",
	     rcu_leak_row);
