/* test-debugreg.c: DR7 encoding, range splitting, slot allocation and DR6 decoding. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "watch/debugreg.h"
#include "check.h"

static char why[256];

static uint64_t encode(const struct dr_slot *slots)
{
	uint64_t dr7 = 0xdeadbeef;

	why[0] = '\0';
	CHECK(dr7_encode(slots, &dr7, why, sizeof(why)) == 0);
	return dr7;
}

/*
 * Expected values worked out by hand from the SDM's DR7 figure (Vol. 3B,
 * 18.2.4): Gn = bit 2n+1, LE|GE|reserved bit 10 = 0x700, R/Wn at 16+4n
 * (01 write, 11 read/write, 00 exec), LENn at 18+4n (00 1, 01 2, 11 4,
 * 10 8 bytes).
 */
static void test_dr7_values(void)
{
	struct dr_slot s[DR_NUM_SLOTS] = { { 0 } };

	CHECK_EQ_U64(encode(s), 0); /* nothing armed: nothing enabled */

	/* G0 0x2 + 0x700 + R/W0=01 (0x10000) + LEN0=11 (0xc0000). */
	s[0] = (struct dr_slot){ .armed = true, .kind = DR_KIND_WRITE, .addr = 0x1000, .len = 4 };
	CHECK_EQ_U64(encode(s), 0xd0702);

	/* G1 0x8 + 0x700 + R/W1=11 (0x300000) + LEN1=10 (0x800000). */
	s[0].armed = false;
	s[1] = (struct dr_slot){
		.armed = true, .kind = DR_KIND_READ_WRITE, .addr = 0x2008, .len = 8
	};
	CHECK_EQ_U64(encode(s), 0xb00708);

	/* G2 0x20 + 0x700 + R/W2=01 (0x1000000) + LEN2=01 (0x4000000). */
	s[1].armed = false;
	s[2] = (struct dr_slot){ .armed = true, .kind = DR_KIND_WRITE, .addr = 0x3002, .len = 2 };
	CHECK_EQ_U64(encode(s), 0x5000720);

	/* Exec in slot 3: G3 0x80 + 0x700, R/W3 and LEN3 both 00. */
	s[2].armed = false;
	s[3] = (struct dr_slot){ .armed = true, .kind = DR_KIND_EXEC, .addr = 0x401235, .len = 1 };
	CHECK_EQ_U64(encode(s), 0x780);

	/* All four, a higher-half address too: the fields add up. */
	s[0] = (struct dr_slot){ .armed = true, .kind = DR_KIND_WRITE, .addr = 0x1001, .len = 1 };
	s[1] = (struct dr_slot){
		.armed = true, .kind = DR_KIND_READ_WRITE, .addr = 0x1002, .len = 2
	};
	s[2] = (struct dr_slot){ .armed = true, .kind = DR_KIND_WRITE, .addr = 0x1004, .len = 4 };
	s[3] = (struct dr_slot){
		.armed = true, .kind = DR_KIND_READ_WRITE, .addr = 0xffffffff81000008ull, .len = 8
	};
	CHECK_EQ_U64(encode(s), 0xbd7107aa);
	/* The upper half of DR7 is reserved and must stay 0. */
	CHECK_EQ_U64(encode(s) >> 32, 0);
}

static void expect_rejected(struct dr_slot bad, unsigned slot, const char *words)
{
	struct dr_slot s[DR_NUM_SLOTS] = { { 0 } };
	uint64_t dr7 = 0;

	s[slot] = bad;
	why[0] = '\0';
	CHECK(dr7_encode(s, &dr7, why, sizeof(why)) == -EINVAL);
	CHECK_CONTAINS(why, words);
	CHECK_CONTAINS(why, slot == 2 ? "slot 2" : "slot 0");
}

static void test_dr7_rejects(void)
{
	expect_rejected(
		(struct dr_slot){ .armed = true, .kind = DR_KIND_WRITE, .addr = 0x1002, .len = 4 },
		2, "not aligned");
	expect_rejected(
		(struct dr_slot){ .armed = true, .kind = DR_KIND_WRITE, .addr = 0x1004, .len = 8 },
		0, "not aligned");
	expect_rejected(
		(struct dr_slot){ .armed = true, .kind = DR_KIND_WRITE, .addr = 0x1000, .len = 3 },
		0, "length 3");
	expect_rejected(
		(struct dr_slot){ .armed = true, .kind = DR_KIND_WRITE, .addr = 0x1000, .len = 16 },
		0, "length 16");
	expect_rejected(
		(struct dr_slot){ .armed = true, .kind = DR_KIND_EXEC, .addr = 0x1000, .len = 4 },
		2, "execution breakpoint has length 1");
	expect_rejected((struct dr_slot){ .armed = true,
					  .kind = DR_KIND_WRITE,
					  .addr = 0x8000000000000000ull,
					  .len = 8 },
			0, "not canonical");
	/* An unarmed slot is not checked: its fields are leftovers. */
	{
		struct dr_slot s[DR_NUM_SLOTS] = { { .armed = false, .addr = 3, .len = 7 } };

		CHECK_EQ_U64(encode(s), 0);
	}
}

/* Split (addr, size) into at most @max pieces and compare with the expected ones. */
static void expect_split_max(uint64_t addr, uint64_t size, unsigned max, int n,
			     uint64_t want_covered, const struct dr_piece *want)
{
	struct dr_piece got[DR_NUM_SLOTS] = { { 0 } };
	uint64_t covered = ~0ull;
	int i, rc = dr_split_range(addr, size, max, got, &covered);

	CHECK_EQ_U64(rc, n);
	if (rc < 0)
		return;
	CHECK_EQ_U64(covered, want_covered);
	for (i = 0; rc == n && i < n; i++) {
		CHECK_EQ_U64(got[i].addr, want[i].addr);
		CHECK_EQ_U64(got[i].len, want[i].len);
	}
}

/* With every slot free: an exact cover when four pieces do it. */
static void expect_split(uint64_t addr, uint64_t size, int n, const struct dr_piece *want)
{
	expect_split_max(addr, size, DR_NUM_SLOTS, n, size, want);
}

static void test_split(void)
{
	expect_split(0x1000, 8, 1, (struct dr_piece[]){ { 0x1000, 8 } });
	expect_split(0x1000, 1, 1, (struct dr_piece[]){ { 0x1000, 1 } });
	expect_split(0x1003, 1, 1, (struct dr_piece[]){ { 0x1003, 1 } });
	expect_split(0x1004, 4, 1, (struct dr_piece[]){ { 0x1004, 4 } });
	expect_split(0x1006, 2, 1, (struct dr_piece[]){ { 0x1006, 2 } });
	/* 4 bytes at addr % 4 == 2: two 2-byte pieces, either side of an 8-byte line. */
	expect_split(0x1002, 4, 2, (struct dr_piece[]){ { 0x1002, 2 }, { 0x1004, 2 } });
	expect_split(0x1006, 4, 2, (struct dr_piece[]){ { 0x1006, 2 }, { 0x1008, 2 } });
	/* 16 aligned bytes: two 8-byte slots. */
	expect_split(0x1000, 16, 2, (struct dr_piece[]){ { 0x1000, 8 }, { 0x1008, 8 } });
	expect_split(0x1008, 16, 2, (struct dr_piece[]){ { 0x1008, 8 }, { 0x1010, 8 } });
	/* Sizes that are not powers of two. */
	expect_split(0x1000, 3, 2, (struct dr_piece[]){ { 0x1000, 2 }, { 0x1002, 1 } });
	expect_split(0x1000, 12, 2, (struct dr_piece[]){ { 0x1000, 8 }, { 0x1008, 4 } });
	expect_split(0x1004, 12, 2, (struct dr_piece[]){ { 0x1004, 4 }, { 0x1008, 8 } });
	expect_split(0x1001, 2, 2, (struct dr_piece[]){ { 0x1001, 1 }, { 0x1002, 1 } });
	/* Three and four pieces, when that many slots are free. */
	expect_split(0x1002, 8, 3,
		     (struct dr_piece[]){ { 0x1002, 2 }, { 0x1004, 4 }, { 0x1008, 2 } });
	expect_split(
		0x1001, 8, 4,
		(struct dr_piece[]){ { 0x1001, 1 }, { 0x1002, 2 }, { 0x1004, 4 }, { 0x1008, 1 } });
	expect_split(
		0x1000, 32, 4,
		(struct dr_piece[]){ { 0x1000, 8 }, { 0x1008, 8 }, { 0x1010, 8 }, { 0x1018, 8 } });
	/* The top of the address space, without wrapping. */
	expect_split(0xfffffffffffffff8ull, 8, 1,
		     (struct dr_piece[]){ { 0xfffffffffffffff8ull, 8 } });

	/* Not enough slots: the longest prefix the free ones cover, the rest soft only. */
	expect_split_max(0x1002, 8, 2, 2, 6, (struct dr_piece[]){ { 0x1002, 2 }, { 0x1004, 4 } });
	expect_split_max(0x1004, 16, 2, 2, 12, (struct dr_piece[]){ { 0x1004, 4 }, { 0x1008, 8 } });
	expect_split_max(0x1000, 24, 1, 1, 8, (struct dr_piece[]){ { 0x1000, 8 } });
	expect_split_max(
		0x1000, 4096, 4, 4, 32,
		(struct dr_piece[]){ { 0x1000, 8 }, { 0x1008, 8 }, { 0x1010, 8 }, { 0x1018, 8 } });
	expect_split_max(
		0x1001, 4096, 4, 4, 15,
		(struct dr_piece[]){ { 0x1001, 1 }, { 0x1002, 2 }, { 0x1004, 4 }, { 0x1008, 8 } });

	expect_split(0x1000, 0, -EINVAL, NULL);
	expect_split(0xfffffffffffffffcull, 8, -EINVAL, NULL);
	expect_split_max(0x1000, 8, 0, -EINVAL, 0, NULL);
	expect_split_max(0x1000, 8, DR_NUM_SLOTS + 1, -EINVAL, 0, NULL);
}

/*
 * Every size 1..4096 at every alignment 0..63, with 1..4 slots: the
 * pieces are aligned 1/2/4/8-byte spans that tile a prefix of the range
 * with no gap or overlap, and with enough slots the whole of it.
 */
static void test_split_every_size(void)
{
	uint64_t size, off, covered, at;
	unsigned max, bad = 0;
	int n, i;

	for (max = 1; max <= DR_NUM_SLOTS; max++)
		for (off = 0; off < 64; off++)
			for (size = 1; size <= 4096; size++) {
				struct dr_piece p[DR_NUM_SLOTS];
				uint64_t addr = 0x10000 + off;

				n = dr_split_range(addr, size, max, p, &covered);
				if (n < 1 || n > (int)max || covered < 1 || covered > size) {
					bad++;
					continue;
				}
				for (i = 0, at = addr; i < n; i++) {
					if (p[i].addr != at ||
					    (p[i].len != 1 && p[i].len != 2 && p[i].len != 4 &&
					     p[i].len != 8) ||
					    p[i].addr % p[i].len)
						bad++;
					at += p[i].len;
				}
				if (at != addr + covered)
					bad++;
				/* Fewer pieces than allowed only when the range is covered. */
				if (n < (int)max && covered != size)
					bad++;
			}
	CHECK_EQ_U64(bad, 0);
}

static void test_alloc(void)
{
	struct dr_alloc a;
	unsigned idx[DR_NUM_SLOTS] = { 0 };
	uint64_t owner = 0;

	dr_alloc_init(&a);
	CHECK_EQ_U64(dr_alloc_free_count(&a), 4);
	CHECK(dr_alloc_owner(&a, 0, &owner) == -ENOENT);
	CHECK(dr_alloc_owner(&a, 4, &owner) == -EINVAL);
	CHECK(dr_alloc_get(&a, 7, 0, idx) == -EINVAL);
	CHECK(dr_alloc_get(&a, 7, 5, idx) == -EINVAL);

	CHECK(dr_alloc_get(&a, 0xaaaa000000000001ull, 2, idx) == 0);
	CHECK_EQ_U64(idx[0], 0);
	CHECK_EQ_U64(idx[1], 1);
	CHECK(dr_alloc_get(&a, 0xbbbb, 1, idx) == 0);
	CHECK_EQ_U64(idx[0], 2);
	CHECK_EQ_U64(dr_alloc_free_count(&a), 1);
	CHECK(dr_alloc_owner(&a, 1, &owner) == 0);
	CHECK_EQ_U64(owner, 0xaaaa000000000001ull);
	CHECK(dr_alloc_owner(&a, 2, &owner) == 0);
	CHECK_EQ_U64(owner, 0xbbbb);

	/* Exhaustion is all or nothing: the one free slot stays free. */
	CHECK(dr_alloc_get(&a, 0xcccc, 2, idx) == -ENOSPC);
	CHECK_EQ_U64(dr_alloc_free_count(&a), 1);
	CHECK(dr_alloc_owner(&a, 3, &owner) == -ENOENT);
	CHECK(dr_alloc_get(&a, 0xcccc, 1, idx) == 0);
	CHECK_EQ_U64(idx[0], 3);
	CHECK(dr_alloc_get(&a, 0xdddd, 1, idx) == -ENOSPC);

	/* Freeing by owner frees all of its slots and only those; the holes are reused. */
	CHECK_EQ_U64(dr_alloc_put(&a, 0xaaaa000000000001ull), 2);
	CHECK_EQ_U64(dr_alloc_put(&a, 0xaaaa000000000001ull), 0);
	CHECK_EQ_U64(dr_alloc_free_count(&a), 2);
	CHECK(dr_alloc_owner(&a, 0, &owner) == -ENOENT);
	CHECK(dr_alloc_owner(&a, 3, &owner) == 0);
	CHECK_EQ_U64(owner, 0xcccc);
	CHECK(dr_alloc_get(&a, 0xeeee, 2, idx) == 0);
	CHECK_EQ_U64(idx[0], 0);
	CHECK_EQ_U64(idx[1], 1);
	CHECK_EQ_U64(dr_alloc_free_count(&a), 0);
	/* Owner 0 is an owner like any other. */
	CHECK_EQ_U64(dr_alloc_put(&a, 0), 0);
	CHECK_EQ_U64(dr_alloc_put(&a, 0xbbbb), 1);
	CHECK(dr_alloc_get(&a, 0, 1, idx) == 0);
	CHECK_EQ_U64(idx[0], 2);
	CHECK_EQ_U64(dr_alloc_put(&a, 0), 1);
}

/* Slots the guest uses itself: never handed out, and kept in the guest's DR7 fields. */
static void test_guest_slots(void)
{
	struct dr_alloc a;
	unsigned idx[DR_NUM_SLOTS] = { 0 };
	const uint64_t guest_dr7 =
		DR7_L(0) | DR7_RW_WRITE << DR7_RW_SHIFT(0) | DR7_LEN_4 << DR7_LEN_SHIFT(0) |
		DR7_G(2) | DR7_RW_READ_WRITE << DR7_RW_SHIFT(2) | DR7_LEN_8 << DR7_LEN_SHIFT(2);
	uint64_t host_dr7;

	CHECK_EQ_U64(dr7_enabled_slots(0), 0);
	CHECK_EQ_U64(dr7_enabled_slots(DR7_FIXED_1 | DR7_GE | DR7_LE), 0);
	CHECK_EQ_U64(dr7_enabled_slots(guest_dr7), 0x5);
	/* R/W and LEN fields alone enable nothing. */
	CHECK_EQ_U64(dr7_enabled_slots(DR7_RW_WRITE << DR7_RW_SHIFT(3)), 0);

	dr_alloc_init(&a);
	CHECK(dr_alloc_get(&a, 1, 1, idx) == 0);
	CHECK_EQ_U64(idx[0], 0);
	/* Slot 0 stays with its owner; slots 1 and 3 are all that is left. */
	dr_alloc_reserve(&a, 0x5);
	CHECK_EQ_U64(dr_alloc_free_count(&a), 2);
	CHECK(dr_alloc_get(&a, 2, 2, idx) == 0);
	CHECK_EQ_U64(idx[0], 1);
	CHECK_EQ_U64(idx[1], 3);
	CHECK(dr_alloc_get(&a, 3, 1, idx) == -ENOSPC);
	/* Freed, slot 0 is not handed out while reserved; released, it is. */
	CHECK_EQ_U64(dr_alloc_put(&a, 1), 1);
	CHECK(dr_alloc_get(&a, 3, 1, idx) == -ENOSPC);
	dr_alloc_reserve(&a, 0x4);
	CHECK(dr_alloc_get(&a, 3, 1, idx) == 0);
	CHECK_EQ_U64(idx[0], 0);

	/* The host owns slot 1; the guest's slots 0 and 2 join it with their own fields. */
	host_dr7 = DR7_G(1) | DR7_RW_WRITE << DR7_RW_SHIFT(1) | DR7_LEN_2 << DR7_LEN_SHIFT(1) |
		   DR7_GE | DR7_LE | DR7_FIXED_1;
	CHECK_EQ_U64(dr7_merge_guest(host_dr7, guest_dr7, 0x5), host_dr7 | guest_dr7);
	/* A slot both want stays the host's. */
	CHECK_EQ_U64(
		dr7_merge_guest(host_dr7, DR7_L(1) | DR7_RW_READ_WRITE << DR7_RW_SHIFT(1), 0x2),
		host_dr7);
	/* One slot's fields, and nothing else, move. */
	CHECK_EQ_U64(dr7_copy_slot(host_dr7, guest_dr7, 2),
		     host_dr7 | DR7_G(2) | DR7_RW_READ_WRITE << DR7_RW_SHIFT(2) |
			     DR7_LEN_8 << DR7_LEN_SHIFT(2));
	CHECK_EQ_U64(dr7_copy_slot(host_dr7, 0, 1), DR7_GE | DR7_LE | DR7_FIXED_1);
	CHECK_EQ_U64(dr7_copy_slot(host_dr7, guest_dr7, 4), host_dr7);
	/* Only the slots asked for are copied. */
	CHECK_EQ_U64(dr7_merge_guest(host_dr7, guest_dr7, 0x1),
		     host_dr7 | DR7_L(0) | DR7_RW_WRITE << DR7_RW_SHIFT(0) |
			     DR7_LEN_4 << DR7_LEN_SHIFT(0));
}

static void test_dr6(void)
{
	struct dr_slot s[DR_NUM_SLOTS] = { { 0 } };
	struct dr_exit e;
	char buf[160];

	s[0] = (struct dr_slot){ .armed = true, .kind = DR_KIND_WRITE, .addr = 0x1000, .len = 4 };
	s[2] = (struct dr_slot){ .armed = true, .kind = DR_KIND_EXEC, .addr = 0x2000, .len = 1 };

	/* B0, as kvm-amd reports a DR0 write watchpoint (measured). */
	dr_exit_decode(0xffff0ff1, s, &e);
	CHECK_EQ_U64(e.hit, 1);
	CHECK_EQ_U64(e.data_hits, 1);
	CHECK_EQ_U64(e.exec_hits | e.stray_hits, 0);
	CHECK(!e.single_step && !e.dr_access && !e.task_switch);
	CHECK(dr_exit_is_ours(&e));
	CHECK_CONTAINS(dr_exit_describe(&e, buf, sizeof(buf)), "data watchpoint slot 0");

	/* BS, as PVM reports KVM_GUESTDBG_SINGLESTEP (measured): not ours. */
	dr_exit_decode(0xffff4ff0, s, &e);
	CHECK_EQ_U64(e.hit, 0);
	CHECK(e.single_step);
	CHECK(!dr_exit_is_ours(&e));
	CHECK_CONTAINS(dr_exit_describe(&e, buf, sizeof(buf)), "single step");

	/* Our exec breakpoint in slot 2: a hit, but not a data watchpoint. */
	dr_exit_decode(0xffff0ff4, s, &e);
	CHECK_EQ_U64(e.exec_hits, 4);
	CHECK_EQ_U64(e.data_hits, 0);
	CHECK(!dr_exit_is_ours(&e));
	CHECK_CONTAINS(dr_exit_describe(&e, buf, sizeof(buf)), "execution breakpoint slot 2");

	/* B1 and B3 on slots we did not arm (the guest's own, or a stale match). */
	dr_exit_decode(0xffff0ffa, s, &e);
	CHECK_EQ_U64(e.stray_hits, 0xa);
	CHECK(!dr_exit_is_ours(&e));
	CHECK_CONTAINS(dr_exit_describe(&e, buf, sizeof(buf)), "slot 1 (not ours)");
	CHECK_CONTAINS(dr_exit_describe(&e, buf, sizeof(buf)), "slot 3 (not ours)");

	/* A watchpoint and a single step on the same instruction: ours, and BS kept. */
	dr_exit_decode(0xffff4ff1, s, &e);
	CHECK(dr_exit_is_ours(&e));
	CHECK(e.single_step);
	CHECK_CONTAINS(dr_exit_describe(&e, buf, sizeof(buf)),
		       "data watchpoint slot 0, single step");

	/* BD and BT. */
	dr_exit_decode(0xffff2ff0, s, &e);
	CHECK(e.dr_access && !e.task_switch && !dr_exit_is_ours(&e));
	dr_exit_decode(0xffff8ff0, s, &e);
	CHECK(e.task_switch && !e.dr_access);
	CHECK_CONTAINS(dr_exit_describe(&e, buf, sizeof(buf)), "task switch");

	/* No slots armed at all: every Bn is stray. */
	dr_exit_decode(0xffff0ff1, NULL, &e);
	CHECK_EQ_U64(e.stray_hits, 1);
	CHECK(!dr_exit_is_ours(&e));

	/* Nothing in DR6: said, not left blank. */
	dr_exit_decode(DR6_FIXED_1, s, &e);
	CHECK_CONTAINS(dr_exit_describe(&e, buf, sizeof(buf)), "no cause");
	/* A short buffer stays terminated. */
	dr_exit_decode(0xffff4ffa, s, &e);
	dr_exit_describe(&e, buf, 12);
	CHECK_EQ_U64(strlen(buf), 11);
}

int main(void)
{
	test_dr7_values();
	test_dr7_rejects();
	test_split();
	test_split_every_size();
	test_alloc();
	test_guest_slots();
	test_dr6();
	return check_exit_status("test-debugreg");
}
