/* debugreg.c: x86 debug registers for host-programmed watchpoints: DR7, DR6, slots. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "watch/debugreg.h"

/*
 * Canonical under 5-level paging (bits 63..56 copy bit 56), the widest
 * form: an address the guest can use under either paging mode passes, and
 * a corrupted one (a host pointer, a stray high bit) does not.
 */
static bool canonical57(uint64_t addr)
{
	int64_t top = (int64_t)addr >> 56;

	return top == 0 || top == -1;
}

/* DR7's LENn code for @len bytes, or -1 for a length it cannot watch. */
static int len_code(unsigned len)
{
	switch (len) {
	case 1: return DR7_LEN_1;
	case 2: return DR7_LEN_2;
	case 4: return DR7_LEN_4;
	case 8: return DR7_LEN_8;
	default: return -1;
	}
}

static int slot_bits(unsigned n, const struct dr_slot *s, uint64_t *bits, char *why, size_t whylen)
{
	uint64_t rw;
	int len = len_code(s->len);

	if (len < 0) {
		snprintf(why, whylen, "debug register slot %u: length %u is not 1, 2, 4 or 8", n,
			 s->len);
		return -EINVAL;
	}
	if (s->addr % s->len) {
		snprintf(why, whylen,
			 "debug register slot %u: address 0x%llx is not aligned to its length %u "
			 "(split the range with dr_split_range)",
			 n, (unsigned long long)s->addr, s->len);
		return -EINVAL;
	}
	if (!canonical57(s->addr)) {
		snprintf(why, whylen, "debug register slot %u: address 0x%llx is not canonical", n,
			 (unsigned long long)s->addr);
		return -EINVAL;
	}
	switch (s->kind) {
	case DR_KIND_EXEC:
		/* SDM 18.2.5: an instruction breakpoint must have LEN 00. */
		if (s->len != 1) {
			snprintf(why, whylen,
				 "debug register slot %u: an execution breakpoint has length 1, "
				 "not %u",
				 n, s->len);
			return -EINVAL;
		}
		rw = DR7_RW_EXEC;
		break;
	case DR_KIND_WRITE: rw = DR7_RW_WRITE; break;
	case DR_KIND_READ_WRITE: rw = DR7_RW_READ_WRITE; break;
	default:
		snprintf(why, whylen, "debug register slot %u: unknown kind %d", n, (int)s->kind);
		return -EINVAL;
	}
	*bits = DR7_G(n) | rw << DR7_RW_SHIFT(n) | (uint64_t)len << DR7_LEN_SHIFT(n);
	return 0;
}

int dr7_encode(const struct dr_slot slots[DR_NUM_SLOTS], uint64_t *dr7, char *why, size_t whylen)
{
	uint64_t v = 0, bits;
	unsigned n;
	int rc;

	for (n = 0; n < DR_NUM_SLOTS; n++) {
		if (!slots[n].armed)
			continue;
		rc = slot_bits(n, &slots[n], &bits, why, whylen);
		if (rc)
			return rc;
		v |= bits;
	}
	if (v)
		v |= DR7_LE | DR7_GE | DR7_FIXED_1;
	*dr7 = v;
	return 0;
}

/* The largest piece length that starts at @addr and fits in @left bytes. */
static unsigned largest_piece(uint64_t addr, uint64_t left)
{
	unsigned len = 8;

	while (len > 1 && (addr % len || len > left))
		len /= 2;
	return len;
}

int dr_split_range(uint64_t addr, uint64_t size, unsigned max, struct dr_piece *out,
		   uint64_t *covered)
{
	uint64_t left = size;
	unsigned n = 0;

	if (size == 0 || addr + size - 1 < addr || max == 0 || max > DR_NUM_SLOTS)
		return -EINVAL;
	/*
	 * Greedy from the left is optimal for aligned power-of-two pieces:
	 * any exact cover must also start at addr with a piece no larger
	 * than the largest aligned one that fits, and each piece it takes is
	 * the longest that can start where the last one ended.
	 */
	while (left && n < max) {
		unsigned len = largest_piece(addr, left);

		out[n].addr = addr;
		out[n].len = len;
		n++;
		addr += len;
		left -= len;
	}
	*covered = size - left;
	return (int)n;
}

unsigned dr7_enabled_slots(uint64_t dr7)
{
	unsigned n, mask = 0;

	for (n = 0; n < DR_NUM_SLOTS; n++)
		if (dr7 & (DR7_L(n) | DR7_G(n)))
			mask |= 1u << n;
	return mask;
}

uint64_t dr7_copy_slot(uint64_t dst, uint64_t src, unsigned n)
{
	const uint64_t fields =
		DR7_L(n) | DR7_G(n) | 3ull << DR7_RW_SHIFT(n) | 3ull << DR7_LEN_SHIFT(n);

	return n < DR_NUM_SLOTS ? (dst & ~fields) | (src & fields) : dst;
}

uint64_t dr7_merge_guest(uint64_t host_dr7, uint64_t guest_dr7, unsigned guest_slots)
{
	const unsigned host_slots = dr7_enabled_slots(host_dr7);
	unsigned n;

	for (n = 0; n < DR_NUM_SLOTS; n++)
		if ((guest_slots & (1u << n)) && !(host_slots & (1u << n)))
			host_dr7 = dr7_copy_slot(host_dr7, guest_dr7, n);
	return host_dr7;
}

void dr_alloc_init(struct dr_alloc *a)
{
	memset(a, 0, sizeof(*a));
}

void dr_alloc_reserve(struct dr_alloc *a, unsigned mask)
{
	a->reserved = mask & ((1u << DR_NUM_SLOTS) - 1);
}

static bool slot_free(const struct dr_alloc *a, unsigned i)
{
	return !a->used[i] && !(a->reserved & (1u << i));
}

unsigned dr_alloc_free_count(const struct dr_alloc *a)
{
	unsigned i, n = 0;

	for (i = 0; i < DR_NUM_SLOTS; i++)
		n += slot_free(a, i);
	return n;
}

int dr_alloc_get(struct dr_alloc *a, uint64_t owner, unsigned n, unsigned *idx)
{
	unsigned i, got = 0;

	if (n == 0 || n > DR_NUM_SLOTS)
		return -EINVAL;
	if (dr_alloc_free_count(a) < n)
		return -ENOSPC;
	for (i = 0; i < DR_NUM_SLOTS && got < n; i++) {
		if (!slot_free(a, i))
			continue;
		a->used[i] = true;
		a->owner[i] = owner;
		idx[got++] = i;
	}
	return 0;
}

unsigned dr_alloc_put(struct dr_alloc *a, uint64_t owner)
{
	unsigned i, n = 0;

	for (i = 0; i < DR_NUM_SLOTS; i++) {
		if (a->used[i] && a->owner[i] == owner) {
			a->used[i] = false;
			a->owner[i] = 0;
			n++;
		}
	}
	return n;
}

int dr_alloc_owner(const struct dr_alloc *a, unsigned slot, uint64_t *owner)
{
	if (slot >= DR_NUM_SLOTS)
		return -EINVAL;
	if (!a->used[slot])
		return -ENOENT;
	*owner = a->owner[slot];
	return 0;
}

void dr_exit_decode(uint64_t dr6, const struct dr_slot slots[DR_NUM_SLOTS], struct dr_exit *out)
{
	unsigned n;

	memset(out, 0, sizeof(*out));
	out->hit = (unsigned)(dr6 & DR6_B_MASK);
	out->single_step = dr6 & DR6_BS;
	out->dr_access = dr6 & DR6_BD;
	out->task_switch = dr6 & DR6_BT;
	for (n = 0; n < DR_NUM_SLOTS; n++) {
		if (!(out->hit & (1u << n)))
			continue;
		if (!slots || !slots[n].armed)
			out->stray_hits |= 1u << n;
		else if (slots[n].kind == DR_KIND_EXEC)
			out->exec_hits |= 1u << n;
		else
			out->data_hits |= 1u << n;
	}
}

/* Append ", " (unless first) and @what with the slots of @mask to @buf. */
static void add_slots(char *buf, size_t len, size_t *used, const char *what, unsigned mask,
		      const char *note)
{
	unsigned n;
	int w;

	if (!mask)
		return;
	for (n = 0; n < DR_NUM_SLOTS; n++) {
		if (!(mask & (1u << n)) || *used >= len)
			continue;
		w = snprintf(buf + *used, len - *used, "%s%s slot %u%s", *used ? ", " : "", what, n,
			     note);
		*used += w > 0 ? (size_t)w : 0;
	}
}

static void add_word(char *buf, size_t len, size_t *used, bool on, const char *what)
{
	int w;

	if (!on || *used >= len)
		return;
	w = snprintf(buf + *used, len - *used, "%s%s", *used ? ", " : "", what);
	*used += w > 0 ? (size_t)w : 0;
}

const char *dr_exit_describe(const struct dr_exit *e, char *buf, size_t len)
{
	size_t used = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	add_slots(buf, len, &used, "data watchpoint", e->data_hits, "");
	add_slots(buf, len, &used, "execution breakpoint", e->exec_hits, "");
	add_slots(buf, len, &used, "breakpoint", e->stray_hits, " (not ours)");
	add_word(buf, len, &used, e->single_step, "single step");
	add_word(buf, len, &used, e->dr_access, "debug register access (BD)");
	add_word(buf, len, &used, e->task_switch, "task switch (BT)");
	add_word(buf, len, &used, used == 0, "no cause in DR6");
	return buf;
}
