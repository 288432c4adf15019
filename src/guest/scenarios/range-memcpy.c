/* range-memcpy.c: zoo: a 64-byte struct overwritten by memcpy() while another CPU stores in it. */
#include <csan/abi.h>

#include "csan.h"
#include "kstring.h"
#include "scenario.h"
#include "zoo.h"

/*
 * Expected (docs/scenarios.md), in both modes: a data race with both
 * stacks.  Every CPU but the first overwrites range_obj whole with
 * memcpy() from its own copy (one 64-byte range write, __tsan_memcpy);
 * the first stores the last 8-byte field with a plain aligned store,
 * taken as marked by default and so never watched itself: the race is
 * found when that store runs into a copier's watchpoint.  The field lies
 * beyond the first 32 bytes on purpose: four debug registers of 8 bytes
 * each cannot cover the whole range in one watch.  Each copier step
 * makes four sampled accesses (its copy's seq, the copy's two sides,
 * the tail read back), which is what showed the sampler's short-period
 * skips (runtime/knobs.c, csan_random).
 */

struct range_obj {
	uint64_t seq;
	uint64_t field[6];
	uint64_t tail;
};
_Static_assert(sizeof(struct range_obj) == 64, "a range wider than four debug registers reach");

static struct range_obj range_obj __attribute__((aligned(64)));

static __noinline void range_memcpy_store(uint64_t v)
{
	range_obj.tail = v;
}

/* Each copier's own copy, the source of its memcpy(). */
static struct range_obj range_snap[CSAN_MAX_CPUS];

static __noinline uint64_t range_memcpy_copy(unsigned int cpu)
{
	range_snap[cpu].seq++;
	memcpy(&range_obj, &range_snap[cpu], sizeof(range_obj));
	return range_snap[cpu].tail;
}

static uint64_t range_memcpy_step(unsigned int cpu, uint64_t i)
{
	if (cpu == 0) {
		range_memcpy_store(i);
		return 0;
	}
	return range_memcpy_copy(cpu);
}

static const struct zoo_row range_memcpy_row = {
	.step = range_memcpy_step,
	.min_cpus = 2,
	.budget_ms = 20000,
	.expect = { .soft = ZOO_DATA_RACE, .hw = ZOO_DATA_RACE },
	.also_kinds = ZOO_ONE_SIDED,
};

ZOO_SCENARIO("range-memcpy",
	     "zoo: a 64-byte struct overwritten by memcpy() while another CPU stores a field",
	     range_memcpy_row);
