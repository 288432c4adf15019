/* range-uninstr.c: zoo: a 64-byte struct copied while uninstrumented code stores in it. */
#include <csan/abi.h>

#include "csan.h"
#include "kstring.h"
#include "scenario.h"
#include "uninstr/halves.h"
#include "zoo.h"

/*
 * Expected (docs/scenarios.md): nothing in soft mode, a data race with
 * both stacks in hw mode.  Every CPU but the first takes a snapshot of
 * range_uninstr_obj with memcpy() (one 64-byte range read); the first
 * stores the struct's last field from uninstrumented code
 * (uninstr/range-uninstr.c).  A soft watch cannot see that store (it
 * never checks watchpoints) nor its value change (values wider than 8
 * bytes are not compared, as in KCSAN), so soft mode reports nothing.
 * In hw mode the copy's watch backs one 32-byte window of the range with
 * debug registers (runtime/watch.c, hw_window): the window holding the
 * last field traps the store.  When the first 32 bytes were always the
 * ones backed, hw mode could not find this race either.
 */

struct range_uninstr_obj range_uninstr_obj __attribute__((aligned(64)));
_Static_assert(sizeof(struct range_uninstr_obj) == 64, "wider than four debug registers reach");

/* Each copier's own snapshot. */
static struct range_uninstr_obj range_uninstr_snap[CSAN_MAX_CPUS];

static __noinline uint64_t range_uninstr_copy(unsigned int cpu)
{
	memcpy(&range_uninstr_snap[cpu], &range_uninstr_obj, sizeof(range_uninstr_obj));
	return range_uninstr_snap[cpu].tail;
}

static uint64_t range_uninstr_step(unsigned int cpu, uint64_t i)
{
	if (cpu == 0) {
		range_uninstr_store(i);
		return 0;
	}
	return range_uninstr_copy(cpu);
}

static const struct zoo_row range_uninstr_row = {
	.step = range_uninstr_step,
	.min_cpus = 2,
	.budget_ms = 5000,
	.expect = { .soft = ZOO_NONE, .hw = ZOO_DATA_RACE },
};

ZOO_SCENARIO("range-uninstr",
	     "zoo: a 64-byte struct memcpy'd while uninstrumented code stores its last field",
	     range_uninstr_row);
