/* bits.c: zoo: ASSERT_EXCLUSIVE_BITS(): allowed changes of other bits, a buggy owned-bit writer. */
#include "csan.h"
#include "scenario.h"
#include "zoo.h"

/*
 * Expected (../shared/ZOO.md), in both modes: "assert: race in bits_owner
 * / bits_buggy_writer" (in either order) with a "bits changed: ... with
 * mask" line.  For the first BITS_FINE_MS only bits outside the owner's
 * mask change (bits_fine_writer), which must not be reported; then the
 * buggy writer flips an owned bit, which must be.
 *
 * Between the two phases CPU 1 waits until CPU 0 has run a whole
 * bits_owner() that began after the last fine write.  Without that, a
 * fine write could take the owner's watchpoint just before the buggy
 * writes begin and change the owned bits under the same watch: the
 * report would then rightly say "bits changed", but name the fine writer
 * as the other side (KCSAN names whoever took the watchpoint).
 */

/* The allowed-changes-only phase. */
#define BITS_FINE_MS 3000

#define BITS_OWNED_MASK 0x00ffUL /* the owner's: nobody else may change them */
#define BITS_OTHER	0xff00UL /* anybody's: change concurrently at will */

static unsigned long bits_flags;
static uint64_t bits_fine_deadline;
static uint64_t bits_fine_phase_reports;

/* CPU 1's phases; CPU 0 acknowledges BITS_FINE_DONE. */
enum bits_phase { BITS_FINE, BITS_FINE_DONE, BITS_BUGGY };
static unsigned int bits_phase;
static bool bits_owner_ack;

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
	unsigned long owned;

	if (cpu == 0) {
		const bool fine_done = READ_ONCE(bits_phase) != BITS_FINE;

		owned = bits_owner();
		/* This whole call, its watch included, came after the fine writes. */
		if (fine_done)
			WRITE_ONCE(bits_owner_ack, true);
		return owned;
	}
	switch (READ_ONCE(bits_phase)) {
	case BITS_FINE:
		if (!deadline_passed(bits_fine_deadline))
			bits_fine_writer();
		else
			WRITE_ONCE(bits_phase, BITS_FINE_DONE);
		return 0;
	case BITS_FINE_DONE:
		if (!READ_ONCE(bits_owner_ack))
			return 0;
		WRITE_ONCE(bits_fine_phase_reports, csan_reports_sent(0));
		WRITE_ONCE(bits_phase, BITS_BUGGY);
		return 0;
	default:
		/* Dense buggy writes (an even number: the owned bit ends as it began). */
		bits_buggy_writer();
		bits_buggy_writer();
		bits_buggy_writer();
		bits_buggy_writer();
		return 0;
	}
}

static void bits_setup(void)
{
	bits_fine_deadline = deadline_after_us((uint64_t)BITS_FINE_MS * 1000);
}

/* Anything reported while only allowed bits changed is a false positive. */
static bool bits_finish(uint64_t iterations)
{
	uint64_t fine = READ_ONCE(bits_fine_phase_reports);

	csan_result_add("fine_phase_reports=%lu", (unsigned long)fine);
	if (fine) {
		printk("bits: reported while only allowed bits changed\n");
		csan_result_add("reason=false-positive");
		return false;
	}
	return true;
}

static const struct zoo_row bits_row = {
	.step = bits_step,
	.setup = bits_setup,
	.finish = bits_finish,
	.min_cpus = 2,
	.budget_ms = 50000,
	.expect = { .soft = ZOO_ASSERT, .hw = ZOO_ASSERT },
	.also_kinds = ZOO_ONE_SIDED,
};

ZOO_SCENARIO("bits",
	     "zoo: ASSERT_EXCLUSIVE_BITS(): other bits change (fine), a buggy writer flips an "
	     "owned bit (assert: race)",
	     bits_row);
