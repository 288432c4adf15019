/* init-assert-early.c: zoo: as init-assert, but a worker runs before init finishes. */
#include "csan.h"
#include "scenario.h"
#include "zoo.h"

/*
 * Expected (docs/scenarios.md), in both modes: "assert: race in
 * init_assert_early_init / init_assert_early_update" and then
 * "... / init_assert_early_reader".
 * As init-assert, but a worker is already running while the object is
 * (re)initialized: the other CPU's xchg() and READ_ONCE() run into the
 * watchpoint of the init's ASSERT_EXCLUSIVE_ACCESS().  The init repeats
 * (each time with the worker already started) until the assertion is
 * watched at the right moment; it is the only access the sampling
 * counts on its CPU.
 *
 * The two races take turns, so that every run reports both: when the
 * row stopped at its first report, a soft run and a hw run on the same
 * seed could each report a different one, and "hw mode reports every
 * race soft mode reports" (tests/vm/compare-superset.sh) could not be
 * held.  The workers update until the first report, pause while CPU 0
 * initializes twice more (its watch that an update could still run into
 * has then ended and reported), then read until a report of their own.
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

/* Whose turn it is, shared by CPU 0 and the workers; marked accesses only. */
enum early_turn { EARLY_UPDATER, EARLY_PAUSE, EARLY_OPENING, EARLY_READER };
static struct {
	uint64_t inits;	      /* CPU 0's inits so far */
	uint64_t pause_until; /* the reader's turn comes once inits reaches this */
	uint64_t reader_base; /* assert reports when the reader's turn began */
	uint32_t turn;	      /* enum early_turn */
} early_turns;

static uint64_t early_asserts(void)
{
	return csan_reports_sent(CSAN_REPORT_ASSERT);
}

/* A worker's step: the object in the current turn's way, or nothing while paused. */
static uint64_t init_assert_early_worker(uint64_t i)
{
	uint32_t turn = __atomic_load_n(&early_turns.turn, __ATOMIC_ACQUIRE), pause = EARLY_PAUSE;
	uint64_t inits = __atomic_load_n(&early_turns.inits, __ATOMIC_RELAXED);

	if (turn == EARLY_READER)
		return init_assert_early_reader();
	if (turn == EARLY_UPDATER && early_asserts() == 0)
		return init_assert_early_update(i) + init_assert_early_update(i + 1) +
		       init_assert_early_update(i + 2);
	if (turn == EARLY_UPDATER) {
		__atomic_store_n(&early_turns.pause_until, inits + 2, __ATOMIC_RELAXED);
		__atomic_compare_exchange_n(&early_turns.turn, &turn, EARLY_PAUSE, false,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
	} else if (inits >= __atomic_load_n(&early_turns.pause_until, __ATOMIC_RELAXED) &&
		   __atomic_compare_exchange_n(&early_turns.turn, &pause, EARLY_OPENING, false,
					       __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		/* One worker opens the reader's turn, its base set before the turn shows. */
		__atomic_store_n(&early_turns.reader_base, early_asserts(), __ATOMIC_RELAXED);
		__atomic_store_n(&early_turns.turn, EARLY_READER, __ATOMIC_RELEASE);
	}
	return 0;
}

static uint64_t init_assert_early_step(unsigned int cpu, uint64_t i)
{
	if (cpu == 0) {
		init_assert_early_init();
		__atomic_fetch_add(&early_turns.inits, 1, __ATOMIC_RELAXED);
		return 0;
	}
	/* The worker started too early: it uses the object during init. */
	return init_assert_early_worker(i);
}

/* Both races reported: the reader's turn has one of its own. */
static bool init_assert_early_done(void)
{
	return __atomic_load_n(&early_turns.turn, __ATOMIC_ACQUIRE) == EARLY_READER &&
	       early_asserts() > __atomic_load_n(&early_turns.reader_base, __ATOMIC_RELAXED);
}

static bool init_assert_early_finish(uint64_t iterations)
{
	bool both = init_assert_early_done();

	csan_result_add("reader_turn=%s", both ? "reported" : "not-reported");
	if (!both)
		csan_result_add("reason=reader-not-reported");
	return both;
}

static const struct zoo_row init_assert_early_row = {
	.step = init_assert_early_step,
	.done = init_assert_early_done,
	.finish = init_assert_early_finish,
	.min_cpus = 2,
	.budget_ms = 50000,
	.expect = { .soft = ZOO_ASSERT, .hw = ZOO_ASSERT },
	.also_kinds = ZOO_ONE_SIDED,
};

ZOO_SCENARIO("init-assert-early",
	     "zoo: as init-assert, but a worker runs before init finishes (assert: race)",
	     init_assert_early_row);
