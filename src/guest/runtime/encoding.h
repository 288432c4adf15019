/* encoding.h: a soft watchpoint packed in one word: encode, decode, slots, overlap. */
#ifndef CSAN_RUNTIME_ENCODING_H
#define CSAN_RUNTIME_ENCODING_H

/*
 * Pure and self-contained, so the host unit tests (tests/unit/
 * test-encoding.c) compile it as it is: C99 headers only, no guest state.
 *
 * A watchpoint is one 64-bit word, so setting one up, consuming it and
 * removing it are each a single atomic operation and the fast path needs
 * no lock.  Layout, from the top bit down:
 *   bit 63                       the watcher's access is a write
 *   bits 62..CSAN_WP_ADDR_BITS   the access size in bytes (1..4096)
 *   bits CSAN_WP_ADDR_BITS-1..0  the low bits of the address
 * The upper address bits are dropped.  Two accesses whose addresses differ
 * only there would match by mistake; that needs them to race and to map
 * to the same slots at the same time, which is rare enough to accept, and
 * the report path compares the full addresses before it reports (it
 * counts such a near miss as an encoding false positive).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

/* Watchpoint slots, each covering an aligned CSAN_SLOT_RANGE of addresses. */
#define CSAN_NUM_WATCHPOINTS 64
#define CSAN_SLOT_RANGE	     4096

/*
 * Accesses check the slots next to their own (CSAN_CHECK_ADJACENT on
 * each side), so an access that reaches into the neighbouring range finds
 * a watchpoint there, and a watchpoint whose own slot is taken can go
 * next door.  The table has CSAN_NUM_SLOTS - 1 extra entries at the end,
 * so the slot index needs no wrap-around in the fast path.
 */
#define CSAN_CHECK_ADJACENT   1
#define CSAN_NUM_SLOTS	      (1 + 2 * CSAN_CHECK_ADJACENT)
#define CSAN_WATCHPOINT_SLOTS (CSAN_NUM_WATCHPOINTS + CSAN_NUM_SLOTS - 1)

/* The two values that are not watchpoints; every encoding is above them. */
#define CSAN_WP_INVALID	 0ull /* free slot */
#define CSAN_WP_CONSUMED 1ull /* a racing access (or the watcher) took it */

/*
 * The largest access a watchpoint covers: one slot range, which is also
 * the largest access a report may carry (CSAN_REPORT_MAX_SIZE).  Larger
 * accesses are counted as unencodable and never watched.
 */
#define CSAN_MAX_ENCODABLE_SIZE CSAN_SLOT_RANGE
#define CSAN_WP_SIZE_BITS	13 /* enough for 4096 */
#define CSAN_WP_ADDR_BITS	(63 - CSAN_WP_SIZE_BITS)
#define CSAN_WP_WRITE_BIT	(1ull << 63)
#define CSAN_WP_SIZE_MASK	(((1ull << CSAN_WP_SIZE_BITS) - 1) << CSAN_WP_ADDR_BITS)
#define CSAN_WP_ADDR_MASK	((1ull << CSAN_WP_ADDR_BITS) - 1)

_Static_assert(CSAN_MAX_ENCODABLE_SIZE < (1ull << CSAN_WP_SIZE_BITS), "size field too narrow");
_Static_assert((CSAN_NUM_WATCHPOINTS & (CSAN_NUM_WATCHPOINTS - 1)) == 0,
	       "slot selection divides by a power of two");

/* A decoded watchpoint. */
struct csan_wp {
	uint64_t addr; /* masked with CSAN_WP_ADDR_MASK */
	uint32_t size;
	bool is_write;
};

static __always_inline bool csan_wp_encodable(size_t size)
{
	return size >= 1 && size <= CSAN_MAX_ENCODABLE_SIZE;
}

/* Only for csan_wp_encodable() sizes. */
static __always_inline uint64_t csan_wp_encode(uint64_t addr, size_t size, bool is_write)
{
	return (is_write ? CSAN_WP_WRITE_BIT : 0) | ((uint64_t)size << CSAN_WP_ADDR_BITS) |
	       (addr & CSAN_WP_ADDR_MASK);
}

/* Returns false for a free or consumed slot. */
static __always_inline bool csan_wp_decode(uint64_t wp, struct csan_wp *out)
{
	if (wp == CSAN_WP_INVALID || wp == CSAN_WP_CONSUMED)
		return false;
	out->addr = wp & CSAN_WP_ADDR_MASK;
	out->size = (uint32_t)((wp & CSAN_WP_SIZE_MASK) >> CSAN_WP_ADDR_BITS);
	out->is_write = (wp & CSAN_WP_WRITE_BIT) != 0;
	return true;
}

/* The slot of the range holding @addr. */
static __always_inline size_t csan_wp_slot(uint64_t addr)
{
	return (size_t)((addr / CSAN_SLOT_RANGE) % CSAN_NUM_WATCHPOINTS);
}

/*
 * The table entries an access at slot @slot checks, for i in
 * [0, CSAN_NUM_SLOTS): its left neighbour, its own, its right neighbour.
 * Order does not matter here: a match anywhere is a match.
 */
static __always_inline size_t csan_wp_check_index(size_t slot, unsigned int i)
{
	return slot + i;
}

/*
 * The entries a new watchpoint at slot @slot tries, in order: its own
 * (the middle one of the three it shares with its neighbours), then the
 * right, then the left.  The same set as csan_wp_check_index().
 */
static __always_inline size_t csan_wp_insert_index(size_t slot, unsigned int i)
{
	return slot + (i + CSAN_CHECK_ADJACENT) % CSAN_NUM_SLOTS;
}

/* Do [addr1, addr1 + size1) and [addr2, addr2 + size2) share a byte? */
static __always_inline bool csan_wp_overlaps(uint64_t addr1, size_t size1, uint64_t addr2,
					     size_t size2)
{
	return addr1 <= addr2 + size2 - 1 && addr2 <= addr1 + size1 - 1;
}

#endif /* CSAN_RUNTIME_ENCODING_H */
