/* overlap-sizes.c: zoo: an 8-byte and a 4-byte plain update of overlapping bytes, on two CPUs. */
#include <csan/abi.h>

#include "csan.h"
#include "scenario.h"
#include "zoo.h"

/*
 * Expected (docs/scenarios.md), in both modes: a data race with both
 * stacks, between the two functions.  The first CPU increments the whole
 * 8-byte word, the others its upper 4-byte half: both instrumented, of
 * different sizes, overlapping in 4 bytes.  Each increment is a plain
 * read (watched when sampled) and a plain aligned write (taken as marked,
 * so only checked), so the race is found when one CPU's write runs into
 * the other's read watch, whichever size each has.  The racing side is
 * instrumented, so it is known: in hw mode, where a debug register also
 * catches a write that checked just before the watch began, the race
 * must never show as "unknown origin" beside the known report.  In soft
 * mode that one-sided report stays possible (ZOO_ONE_SIDED).
 */

static union {
	uint64_t word;
	uint32_t half[2];
} overlap_obj __attribute__((aligned(64)));

static __noinline uint64_t overlap_sizes_word(void)
{
	return ++overlap_obj.word;
}

static __noinline uint64_t overlap_sizes_half(void)
{
	return ++overlap_obj.half[1];
}

static uint64_t overlap_sizes_step(unsigned int cpu, uint64_t i)
{
	return cpu == 0 ? overlap_sizes_word() : overlap_sizes_half();
}

/*
 * Run on past the first report: an unknown-origin report beside the
 * known one comes from another watch of the same two accesses, so one
 * report settles nothing.
 */
#define OVERLAP_SIZES_REPORTS 8

static bool overlap_sizes_done(void)
{
	return csan_reports_sent(CSAN_REPORT_DATA_RACE) >= OVERLAP_SIZES_REPORTS;
}

static const struct zoo_row overlap_sizes_row = {
	.step = overlap_sizes_step,
	.done = overlap_sizes_done,
	.min_cpus = 2,
	.budget_ms = 20000,
	.expect = { .soft = ZOO_DATA_RACE, .hw = ZOO_DATA_RACE },
	.also_kinds = ZOO_ONE_SIDED,
	.hw_knows_writer = true,
};

ZOO_SCENARIO("overlap-sizes",
	     "zoo: an 8-byte and a 4-byte plain update of overlapping bytes, on two CPUs",
	     overlap_sizes_row);
