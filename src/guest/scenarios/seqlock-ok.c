/* seqlock-ok.c: zoo: seqlock readers of data written only inside write-side sections (no report) */
#include "csan.h"
#include "scenario.h"
#include "zoo.h"

/*
 * Expected (../shared/ZOO.md), in both modes: no report.  The writer
 * changes seqlock_a and seqlock_b (plain) only inside a write-side
 * section, under a spinlock and between two increments of the sequence
 * count; readers read them plainly and retry when the count moved.  As in
 * Linux's seqlock.h, read_seqbegin() marks the next accesses atomic
 * (kcsan_atomic_next) and the writer's section is a nestable atomic
 * region, so the speculative reads are not races.
 */

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

/* The seqlock must really have kept the pair consistent. */
static bool seqlock_ok_finish(uint64_t iterations)
{
	if (READ_ONCE(seqlock_torn)) {
		printk("seqlock-ok: a reader saw a torn pair\n");
		csan_result_add("reason=torn-read");
		return false;
	}
	return true;
}

static const struct zoo_row seqlock_ok_row = {
	.step = seqlock_ok_step,
	.finish = seqlock_ok_finish,
	.min_cpus = 2,
	.budget_ms = 3000, /* race-free: always runs it all */
	.expect = { .soft = ZOO_NONE, .hw = ZOO_NONE },
};

ZOO_SCENARIO("seqlock-ok",
	     "zoo: seqlock readers of data written only inside write-side sections (no report)",
	     seqlock_ok_row);
