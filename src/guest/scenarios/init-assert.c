/* init-assert.c: zoo: single-threaded init with ASSERT_EXCLUSIVE_ACCESS(), then marked workers. */
#include "csan.h"
#include "scenario.h"
#include "zoo.h"

/*
 * Expected (../shared/ZOO.md), in both modes: no report.  The object is
 * initialized single-threaded with plain writes and
 * ASSERT_EXCLUSIVE_ACCESS(), and only then are the workers started, which
 * use xchg() (__atomic_exchange_n) and READ_ONCE() only.
 */

struct init_obj {
	uint64_t state; /* after init: xchg() and READ_ONCE() only */
	uint64_t gen;	/* after init: READ_ONCE() only */
};
static struct init_obj init_obj;

/*
 * Single-threaded init: plain writes, then the assertion that nobody
 * else can see the object yet.  Runs on the boot CPU as the row's set-up,
 * before any worker starts (csan_run_on_cpus() publishes it to them).
 */
static __noinline void init_assert_init(void)
{
	init_obj.state = 1;
	init_obj.gen = 1;
	ASSERT_EXCLUSIVE_ACCESS(init_obj);
}

static __noinline uint64_t init_assert_update(uint64_t v)
{
	return __atomic_exchange_n(&init_obj.state, v, __ATOMIC_SEQ_CST);
}

static __noinline uint64_t init_assert_reader(void)
{
	return READ_ONCE(init_obj.state) + READ_ONCE(init_obj.gen);
}

/* The witness's watchpoints show the workers were watched (zoo.h). */
static uint64_t init_assert_step(unsigned int cpu, uint64_t i)
{
	if ((cpu == 0) == ((i & 3) != 0))
		return init_assert_update(i) + zoo_witness(cpu);
	return init_assert_reader() + zoo_witness(cpu);
}

static const struct zoo_row init_assert_row = {
	.step = init_assert_step,
	.setup = init_assert_init,
	.min_cpus = 2,
	.budget_ms = 3000, /* race-free: always runs it all */
	.expect = { .soft = ZOO_NONE, .hw = ZOO_NONE },
};

ZOO_SCENARIO("init-assert",
	     "zoo: single-threaded init with ASSERT_EXCLUSIVE_ACCESS(), then xchg()/READ_ONCE() "
	     "workers (no report)",
	     init_assert_row);
