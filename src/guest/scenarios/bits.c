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
 */

/* The allowed-changes-only phase. */
#define BITS_FINE_MS 3000

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

static void bits_setup(void)
{
	bits_phase2 = deadline_after_us((uint64_t)BITS_FINE_MS * 1000);
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
};

ZOO_SCENARIO("bits",
	     "zoo: ASSERT_EXCLUSIVE_BITS(): other bits change (fine), a buggy writer flips an "
	     "owned bit (assert: race)",
	     bits_row);
