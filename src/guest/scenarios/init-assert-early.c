/* init-assert-early.c: zoo: as init-assert, but a worker runs before init finishes. */
#include "csan.h"
#include "scenario.h"
#include "zoo.h"

/*
 * Expected (../shared/ZOO.md), in both modes: "assert: race in
 * init_assert_early_init / init_assert_early_update" (in either order).
 * As init-assert, but a worker is already running while the object is
 * (re)initialized: the other CPU's xchg() runs into the watchpoint of the
 * init's ASSERT_EXCLUSIVE_ACCESS().  The init repeats (each time with the
 * worker already started) until the assertion is watched at the right
 * moment; it is the only access the sampling counts on its CPU.
 */

struct early_obj {
	uint64_t state; /* after init: xchg() and READ_ONCE() only */
	uint64_t gen;	/* after init: READ_ONCE() only */
};
static struct early_obj early_obj;

/*
 * The init: plain writes, then the assertion that nobody else can see
 * the object yet, which is false here.
 */
static __noinline void init_assert_early_init(void)
{
	early_obj.state = 1;
	early_obj.gen = 1;
	ASSERT_EXCLUSIVE_ACCESS(early_obj);
}

static __noinline uint64_t init_assert_early_update(uint64_t v)
{
	return __atomic_exchange_n(&early_obj.state, v, __ATOMIC_SEQ_CST);
}

static __noinline uint64_t init_assert_early_reader(void)
{
	return READ_ONCE(early_obj.state) + READ_ONCE(early_obj.gen);
}

static uint64_t init_assert_early_step(unsigned int cpu, uint64_t i)
{
	if (cpu == 0) {
		init_assert_early_init();
		return 0;
	}
	/* The worker started too early: it uses the object during init. */
	return init_assert_early_update(i) + init_assert_early_update(i + 1) +
	       init_assert_early_update(i + 2) + init_assert_early_reader();
}

static const struct zoo_row init_assert_early_row = {
	.step = init_assert_early_step,
	.min_cpus = 2,
	.budget_ms = 50000,
	.expect = { .soft = ZOO_ASSERT, .hw = ZOO_ASSERT },
	.also_kinds = ZOO_ONE_SIDED,
};

ZOO_SCENARIO("init-assert-early",
	     "zoo: as init-assert, but a worker runs before init finishes (assert: race)",
	     init_assert_early_row);
