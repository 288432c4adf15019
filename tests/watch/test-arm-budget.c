/* test-arm-budget.c: who gets the debug registers when the time budget is short. */
#include <stdint.h>

#include "tests/unit/check.h"
#include "watch/arm_budget.h"

#define MS 1000000ull
#define T0 (1000 * MS)

/* 20% of wall time, 50 ms saved up at most: what guest/linux/linux_watch.c uses. */
static struct arm_budget b;

static void fresh(void)
{
	arm_budget_init(&b, 20, 50);
}

/* While the bucket is over half full, anything is backed. */
static void test_plenty(void)
{
	fresh();
	CHECK(arm_budget_admit(&b, 0x1000, 0, false, T0) == ARM_YES);
	arm_budget_charge(&b, 20 * MS);
	CHECK(arm_budget_admit(&b, 0x2000, 0, false, T0) == ARM_YES);
	arm_budget_charge(&b, 6 * MS); /* 24 ms left: under half */
	CHECK(arm_budget_admit(&b, 0x3000, 0, false, T0) == ARM_NO);
}

/* The reserve goes to an address two vCPUs watch, a few times. */
static void test_reserve_for_shared(void)
{
	unsigned i;

	fresh();
	arm_budget_charge(&b, 40 * MS); /* 10 ms left */
	/* One vCPU's own object: not from the reserve, however often. */
	for (i = 0; i < 8; i++)
		CHECK(arm_budget_admit(&b, 0x5000, 1, false, T0) == ARM_NO);
	/* The first watch of a variable from one vCPU: not shared yet. */
	CHECK(arm_budget_admit(&b, 0x6000, 0, false, T0) == ARM_NO);
	/* A second vCPU watches it: shared, backed ARM_BUDGET_FAVOURED times. */
	for (i = 0; i < ARM_BUDGET_FAVOURED; i++)
		CHECK(arm_budget_admit(&b, 0x6000, 1 + i % 2, false, T0) == ARM_FAVOURED);
	CHECK(arm_budget_admit(&b, 0x6000, 2, false, T0) == ARM_NO);
	/* Only while there is budget at all. */
	arm_budget_charge(&b, 10 * MS);
	CHECK(arm_budget_admit(&b, 0x7000, 0, false, T0) == ARM_NO);
	CHECK(arm_budget_admit(&b, 0x7000, 1, false, T0) == ARM_NO);
}

/* Static data is shared from its first watch: its other side may set up none. */
static void test_global(void)
{
	unsigned i;

	fresh();
	arm_budget_charge(&b, 40 * MS);
	for (i = 0; i < ARM_BUDGET_FAVOURED; i++)
		CHECK(arm_budget_admit(&b, 0xd000, 0, true, T0) == ARM_FAVOURED);
	CHECK(arm_budget_admit(&b, 0xd000, 0, true, T0) == ARM_NO);
}

/* A watch that caught an access keeps its address favoured; counts halve. */
static void test_caught_and_decay(void)
{
	unsigned i;

	fresh();
	arm_budget_charge(&b, 45 * MS); /* 5 ms left */
	CHECK(arm_budget_admit(&b, 0x8000, 0, false, T0) == ARM_NO);
	for (i = 0; i < ARM_BUDGET_FAVOURED; i++)
		CHECK(arm_budget_admit(&b, 0x8000, 1, false, T0) == ARM_FAVOURED);
	CHECK(arm_budget_admit(&b, 0x8000, 1, false, T0) == ARM_NO);
	arm_budget_caught(&b, 0x8000);
	CHECK(arm_budget_admit(&b, 0x8000, 0, false, T0) == ARM_FAVOURED);
	/* Used up again; one half-life later two of four are forgotten. */
	for (i = 1; i < ARM_BUDGET_FAVOURED; i++)
		CHECK(arm_budget_admit(&b, 0x8000, 0, false, T0) == ARM_FAVOURED);
	CHECK(arm_budget_admit(&b, 0x8000, 0, false, T0) == ARM_NO);
	/* The refill over that second is charged away to keep the bucket low. */
	arm_budget_charge(&b, ARM_BUDGET_HALFLIFE_MS * MS / 5);
	CHECK(arm_budget_admit(&b, 0x8000, 0, false, T0 + ARM_BUDGET_HALFLIFE_MS * MS) == ARM_FAVOURED);
	CHECK(arm_budget_admit(&b, 0x8000, 0, false, T0 + ARM_BUDGET_HALFLIFE_MS * MS) == ARM_FAVOURED);
	CHECK(arm_budget_admit(&b, 0x8000, 0, false, T0 + ARM_BUDGET_HALFLIFE_MS * MS) == ARM_NO);
}

/* The bucket refills at the given share of wall time, up to the burst. */
static void test_refill(void)
{
	fresh();
	CHECK(arm_budget_admit(&b, 0x9000, 0, false, T0) == ARM_YES);
	arm_budget_charge(&b, 60 * MS); /* a slow arm: 10 ms in debt */
	CHECK(arm_budget_admit(&b, 0x9000, 1, false, T0) == ARM_NO);
	/* 100 ms later: 20 ms back, 10 ms in hand, the reserve only. */
	CHECK(arm_budget_admit(&b, 0xa000, 0, false, T0 + 100 * MS) == ARM_NO);
	CHECK(arm_budget_admit(&b, 0x9000, 0, false, T0 + 100 * MS) == ARM_FAVOURED);
	/* A long idle spell fills it to the burst, not beyond. */
	CHECK(arm_budget_admit(&b, 0xb000, 0, false, T0 + 100000 * MS) == ARM_YES);
	arm_budget_charge(&b, 26 * MS);
	CHECK(arm_budget_admit(&b, 0xc000, 0, false, T0 + 100000 * MS) == ARM_NO);
}

/* Another address on the same entry takes it over, starting afresh. */
static void test_collision(void)
{
	unsigned i;
	uint64_t a = 0x10000, other = 0;

	fresh();
	/* A second address on a's entry: after both, one entry is in use. */
	for (i = 1; i < 1u << 20 && !other; i++) {
		static struct arm_budget probe;
		unsigned j, used = 0;

		arm_budget_init(&probe, 20, 50);
		arm_budget_admit(&probe, a, 0, false, T0);
		arm_budget_admit(&probe, a + (uint64_t)i * 8, 1, false, T0);
		for (j = 0; j < ARM_BUDGET_TABLE; j++)
			used += probe.seen[j].addr != 0;
		if (used == 1)
			other = a + (uint64_t)i * 8;
	}
	CHECK(other != 0);
	arm_budget_charge(&b, 40 * MS);
	CHECK(arm_budget_admit(&b, a, 0, false, T0) == ARM_NO);
	CHECK(arm_budget_admit(&b, a, 1, false, T0) == ARM_FAVOURED);
	/* other from vCPU 2 takes the entry: one vCPU, not shared. */
	CHECK(arm_budget_admit(&b, other, 2, false, T0) == ARM_NO);
	/* a comes back as new: its two vCPUs forgotten. */
	CHECK(arm_budget_admit(&b, a, 1, false, T0) == ARM_NO);
}

int main(void)
{
	test_plenty();
	test_reserve_for_shared();
	test_global();
	test_caught_and_decay();
	test_refill();
	test_collision();
	return check_exit_status("test-arm-budget");
}
