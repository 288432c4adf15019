/* test-encoding.c: the guest runtime's watchpoint encoding, slots and overlap rules. */
#include <stdint.h>

#include "guest/runtime/encoding.h"
#include "check.h"

/* Addresses as the guest has them (identity map) and as a higher-half kernel would. */
static const uint64_t addrs[] = {
	0x0,
	0x1,
	0x100000,
	0x2321e0,
	0xbffffff8,
	0xffffffff,
	0x3fffffffffff8ull,
	CSAN_WP_ADDR_MASK,
	0xffff888000001000ull,
	0xffffffff81000000ull,
};
static const uint32_t sizes[] = { 1, 2, 3, 4, 8, 16, 64, 4095, 4096 };

static void test_round_trip(void)
{
	unsigned int i, j, w;

	for (i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++) {
		for (j = 0; j < sizeof(sizes) / sizeof(sizes[0]); j++) {
			for (w = 0; w < 2; w++) {
				uint64_t e = csan_wp_encode(addrs[i], sizes[j], w);
				struct csan_wp d = { 0 };

				/* Never one of the two reserved values. */
				CHECK(e != CSAN_WP_INVALID && e != CSAN_WP_CONSUMED);
				CHECK(csan_wp_decode(e, &d));
				CHECK_EQ_U64(d.addr, addrs[i] & CSAN_WP_ADDR_MASK);
				CHECK_EQ_U64(d.size, sizes[j]);
				CHECK_EQ_U64(d.is_write, w);
			}
		}
	}
}

static void test_reserved_and_encodable(void)
{
	struct csan_wp d = { 0 };

	CHECK(!csan_wp_decode(CSAN_WP_INVALID, &d));
	CHECK(!csan_wp_decode(CSAN_WP_CONSUMED, &d));
	CHECK(!csan_wp_encodable(0));
	CHECK(csan_wp_encodable(1));
	CHECK(csan_wp_encodable(CSAN_MAX_ENCODABLE_SIZE));
	CHECK(!csan_wp_encodable(CSAN_MAX_ENCODABLE_SIZE + 1));
	/* The report ABI carries what a watchpoint covers, no more. */
	CHECK_EQ_U64(CSAN_MAX_ENCODABLE_SIZE, 4096);
	/* The dropped high bits are the only information lost. */
	CHECK_EQ_U64(csan_wp_encode(0xffff888000001000ull, 8, 0),
		     csan_wp_encode(0xffff888000001000ull & CSAN_WP_ADDR_MASK, 8, 0));
	CHECK_EQ_U64(CSAN_WP_WRITE_BIT & CSAN_WP_SIZE_MASK, 0);
	CHECK_EQ_U64(CSAN_WP_SIZE_MASK & CSAN_WP_ADDR_MASK, 0);
	CHECK_EQ_U64(CSAN_WP_WRITE_BIT | CSAN_WP_SIZE_MASK | CSAN_WP_ADDR_MASK, UINT64_MAX);
}

static void test_overlap(void)
{
	/* Touching ranges do not overlap; one shared byte does. */
	CHECK(!csan_wp_overlaps(0x1000, 4, 0x1004, 4));
	CHECK(!csan_wp_overlaps(0x1004, 4, 0x1000, 4));
	CHECK(csan_wp_overlaps(0x1000, 4, 0x1003, 1));
	CHECK(csan_wp_overlaps(0x1003, 1, 0x1000, 4));
	CHECK(!csan_wp_overlaps(0x1000, 4, 0xfff, 1));
	CHECK(csan_wp_overlaps(0x1000, 4, 0xfff, 2));
	/* Containment either way, and identity. */
	CHECK(csan_wp_overlaps(0x1000, 4096, 0x1800, 8));
	CHECK(csan_wp_overlaps(0x1800, 8, 0x1000, 4096));
	CHECK(csan_wp_overlaps(0x2000, 1, 0x2000, 1));
	/* Bytes at the two ends of a range. */
	CHECK(csan_wp_overlaps(0x1000, 16, 0x100f, 1));
	CHECK(!csan_wp_overlaps(0x1000, 16, 0x1010, 1));
	/* Address 0 and the top of the encoded space. */
	CHECK(csan_wp_overlaps(0, 1, 0, 8));
	CHECK(!csan_wp_overlaps(0, 1, 1, 8));
	CHECK(csan_wp_overlaps(CSAN_WP_ADDR_MASK, 1, CSAN_WP_ADDR_MASK - 7, 8));
}

static void test_slots(void)
{
	unsigned int i, j;
	size_t last = CSAN_NUM_WATCHPOINTS - 1;

	/* One slot per range, wrapping around the table. */
	CHECK_EQ_U64(csan_wp_slot(0), 0);
	CHECK_EQ_U64(csan_wp_slot(CSAN_SLOT_RANGE - 1), 0);
	CHECK_EQ_U64(csan_wp_slot(CSAN_SLOT_RANGE), 1);
	CHECK_EQ_U64(csan_wp_slot((uint64_t)CSAN_SLOT_RANGE * CSAN_NUM_WATCHPOINTS), 0);
	CHECK_EQ_U64(csan_wp_slot((uint64_t)CSAN_SLOT_RANGE * CSAN_NUM_WATCHPOINTS - 1), last);

	/* Insertion tries the own entry first, then right, then left. */
	CHECK_EQ_U64(csan_wp_insert_index(5, 0), 5 + CSAN_CHECK_ADJACENT);
	CHECK_EQ_U64(csan_wp_insert_index(5, 1), 5 + CSAN_CHECK_ADJACENT + 1);
	CHECK_EQ_U64(csan_wp_insert_index(5, 2), 5);

	/* Both walks stay inside the table, even from the last slot. */
	for (i = 0; i < CSAN_NUM_SLOTS; i++) {
		CHECK(csan_wp_insert_index(last, i) < CSAN_WATCHPOINT_SLOTS);
		CHECK(csan_wp_check_index(last, i) < CSAN_WATCHPOINT_SLOTS);
	}
	CHECK_EQ_U64(csan_wp_insert_index(last, 1), CSAN_WATCHPOINT_SLOTS - 1);

	/* Insertion and checking visit the same entries, each once. */
	for (i = 0; i < CSAN_NUM_SLOTS; i++) {
		unsigned int seen = 0;

		for (j = 0; j < CSAN_NUM_SLOTS; j++)
			seen += csan_wp_check_index(7, j) == csan_wp_insert_index(7, i);
		CHECK_EQ_U64(seen, 1);
	}

	/*
	 * A watchpoint pushed into a neighbour's entry is still found from
	 * its own range, and an access in the next range finds a watchpoint
	 * placed in its own entry by the range before.
	 */
	for (i = 0; i < CSAN_NUM_SLOTS; i++) {
		size_t at = csan_wp_insert_index(csan_wp_slot(0x5000), i), hit = 0;

		for (j = 0; j < CSAN_NUM_SLOTS; j++)
			hit += csan_wp_check_index(csan_wp_slot(0x5ff8), j) == at;
		CHECK_EQ_U64(hit, 1);
	}
	{
		size_t own = csan_wp_insert_index(csan_wp_slot(0x5ffc), 0), hit = 0;

		for (j = 0; j < CSAN_NUM_SLOTS; j++)
			hit += csan_wp_check_index(csan_wp_slot(0x6000), j) == own;
		CHECK_EQ_U64(hit, 1);
	}
}

int main(void)
{
	test_round_trip();
	test_reserved_and_encodable();
	test_overlap();
	test_slots();
	return check_exit_status("test-encoding");
}
