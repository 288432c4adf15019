/* refcount-reserve.c: zoo: ASSERT_EXCLUSIVE_ACCESS() after the last put; a user with no ref. */
#include "csan.h"
#include "scenario.h"
#include "zoo.h"

/*
 * Expected (../shared/ZOO.md), in both modes: "assert: race in
 * refcount_reserve_buggy_user / refcount_reserve_put" (in either order).
 *
 * An object is handed out with a reference, and the holder's
 * refcount_reserve_put() drops it with atomic_dec_and_test(); the last
 * drop asserts with ASSERT_EXCLUSIVE_ACCESS() that nobody else can reach
 * the object any more, then parks it in an emergency reserve to be
 * handed out again.  A buggy user on another CPU updates the object's
 * statistics through a pointer it holds no reference for.  Its accesses
 * are marked (an atomic add), so only the assertion gets watched.
 */

struct rr_obj {
	int refcount;	/* atomic_t */
	uint64_t stats; /* the holder's; nobody's while in the reserve */
};

static struct rr_obj rr_obj;
static struct rr_obj *rr_reserve; /* the emergency reserve: one slot */
static struct rr_obj *rr_current; /* what the buggy user finds */

static __noinline struct rr_obj *refcount_reserve_get(void)
{
	struct rr_obj *o = __atomic_exchange_n(&rr_reserve, NULL, __ATOMIC_ACQUIRE);

	__atomic_store_n(&o->refcount, 1, __ATOMIC_RELAXED);
	WRITE_ONCE(rr_current, o);
	return o;
}

/* atomic_dec_and_test(), and the last one out puts the object in the reserve. */
static __noinline void refcount_reserve_put(struct rr_obj *o)
{
	if (__atomic_sub_fetch(&o->refcount, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	ASSERT_EXCLUSIVE_ACCESS(o->stats);
	WRITE_ONCE(o->stats, 0);
	__atomic_store_n(&rr_reserve, o, __ATOMIC_RELEASE);
}

/* The bug: uses the object without taking a reference. */
static __noinline void refcount_reserve_buggy_user(uint64_t v)
{
	struct rr_obj *o = READ_ONCE(rr_current);

	__atomic_fetch_add(&o->stats, v, __ATOMIC_RELAXED);
}

static uint64_t refcount_reserve_step(unsigned int cpu, uint64_t i)
{
	struct rr_obj *o;

	if (cpu == 0) {
		o = refcount_reserve_get();
		__atomic_fetch_add(&o->stats, 1, __ATOMIC_RELAXED); /* the holder's use */
		refcount_reserve_put(o);
		return 0;
	}
	/* Dense buggy uses: the assertion's watch lasts under 80 us. */
	refcount_reserve_buggy_user(i);
	refcount_reserve_buggy_user(i + 1);
	refcount_reserve_buggy_user(i + 2);
	refcount_reserve_buggy_user(i + 3);
	return 0;
}

static void refcount_reserve_setup(void)
{
	rr_reserve = &rr_obj;
	rr_current = &rr_obj;
}

static const struct zoo_row refcount_reserve_row = {
	.step = refcount_reserve_step,
	.setup = refcount_reserve_setup,
	.min_cpus = 2,
	.budget_ms = 50000,
	.expect = { .soft = ZOO_ASSERT, .hw = ZOO_ASSERT },
	.also_kinds = ZOO_ONE_SIDED,
};

ZOO_SCENARIO("refcount-reserve",
	     "zoo: ASSERT_EXCLUSIVE_ACCESS() after atomic_dec_and_test(), and a user holding no "
	     "reference (assert: race)",
	     refcount_reserve_row);
