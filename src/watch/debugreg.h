/* debugreg.h: x86 debug registers for host-programmed watchpoints: DR7, DR6, slots. */
#ifndef CSAN_WATCH_DEBUGREG_H
#define CSAN_WATCH_DEBUGREG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Pure encoders and bookkeeping, no KVM calls: the VMM puts the results
 * into struct kvm_guest_debug (debugreg[0..3] = slot addresses,
 * debugreg[7] = dr7_encode) and reads kvm_run->debug.arch.dr6 back.
 * Nothing here is thread-safe; the caller serializes.
 */

/* The four address registers DR0-DR3. */
#define DR_NUM_SLOTS 4

/*
 * DR7 layout (Intel SDM Vol. 3B, 18.2.4 "Debug Control Register (DR7)";
 * AMD APM Vol. 2, 13.1.1.5).
 */
#define DR7_L(n)	  (1ull << (2 * (n)))	  /* local enable of slot n */
#define DR7_G(n)	  (1ull << (2 * (n) + 1)) /* global enable of slot n */
#define DR7_LE		  (1ull << 8)		  /* exact local breakpoints */
#define DR7_GE		  (1ull << 9)		  /* exact global breakpoints */
#define DR7_FIXED_1	  (1ull << 10)		  /* reserved, reads as 1 */
#define DR7_GD		  (1ull << 13)		  /* general detect: trap MOV DRn */
#define DR7_RW_SHIFT(n)	  (16 + 4 * (n))
#define DR7_LEN_SHIFT(n)  (18 + 4 * (n))
#define DR7_RW_EXEC	  0x0ull /* instruction execution */
#define DR7_RW_WRITE	  0x1ull /* data writes */
#define DR7_RW_READ_WRITE 0x3ull /* data reads or writes, not fetches */
#define DR7_LEN_1	  0x0ull
#define DR7_LEN_2	  0x1ull
#define DR7_LEN_8	  0x2ull /* 64-bit mode only (SDM 18.2.5) */
#define DR7_LEN_4	  0x3ull

/*
 * DR6 layout (SDM Vol. 3B, 18.2.3).  The reserved bits read as 1, so an
 * idle DR6 is 0xffff0ff0; KVM reports it that way (kvm-amd gave 0xffff0ff1
 * for a DR0 hit, PVM 0xffff4ff0 for a single step).
 */
#define DR6_B(n)    (1ull << (n)) /* slot n's condition was met */
#define DR6_B_MASK  0xfull
#define DR6_BD	    (1ull << 13) /* a MOV DRn hit DR7.GD */
#define DR6_BS	    (1ull << 14) /* single step (RFLAGS.TF or KVM_GUESTDBG_SINGLESTEP) */
#define DR6_BT	    (1ull << 15) /* task switch into a TSS with its T flag */
#define DR6_FIXED_1 0xffff0ff0ull

/* What a slot breaks on. */
enum dr_kind {
	DR_KIND_EXEC,	    /* executing the instruction at addr (length 1) */
	DR_KIND_WRITE,	    /* writes to [addr, addr + len) */
	DR_KIND_READ_WRITE, /* reads or writes of [addr, addr + len) */
};

/* One debug-address register as the caller wants it programmed. */
struct dr_slot {
	bool armed; /* off: the slot is disabled in DR7 and its fields ignored */
	enum dr_kind kind;
	uint64_t addr; /* guest linear address, aligned to len */
	unsigned len;  /* 1, 2, 4 or 8 bytes; exec slots: 1 */
};

/*
 * dr7_encode - the DR7 value that arms the armed slots of @slots
 * (DR_NUM_SLOTS of them) and disables the others.  Slots are enabled with
 * their global bit Gn and GE is set, as QEMU's gdbstub does for
 * host-owned breakpoints: KVM enables a slot on either Ln or Gn, and the
 * global bits survive the guest's own task switches.  LE is set as well,
 * as the SDM recommends wherever exact breakpoints matter.  With no slot
 * armed the result is 0 (nothing for KVM to load).  Returns 0, or -EINVAL
 * with the slot and the problem in @why (@whylen bytes): a length other
 * than 1, 2, 4 or 8, an address not aligned to its length (the CPU would
 * silently watch the aligned block instead, SDM 18.2.5), an exec slot
 * longer than 1, or a non-canonical address.
 */
int dr7_encode(const struct dr_slot slots[DR_NUM_SLOTS], uint64_t *dr7, char *why, size_t whylen);

struct dr_piece {
	uint64_t addr;
	unsigned len; /* 1, 2, 4 or 8, and addr % len == 0 */
};

/*
 * dr_split_range - the aligned pieces that cover the access [@addr,
 * @addr + @size), largest first from the left, into @out: at most @max
 * of them (1..DR_NUM_SLOTS, the slots free for it).  Exact rather than
 * rounded out to one larger aligned block: a rounded block would also
 * trap on the neighbouring bytes, which are other variables, and report
 * races on them.  When @max pieces do not reach the end, they cover the
 * longest prefix @max aligned pieces can, and the rest stays unwatched
 * by hardware (the caller counts it).  Stores the bytes covered, from
 * @addr, in *@covered.  Returns the number of pieces (1..@max), or
 * -EINVAL for @size 0, a range that wraps around the address space, or
 * a bad @max.
 */
int dr_split_range(uint64_t addr, uint64_t size, unsigned max, struct dr_piece *out,
		   uint64_t *covered);

/*
 * dr7_enabled_slots - the slots @dr7 enables (Ln or Gn), as a mask
 * (bit n = slot n).
 */
unsigned dr7_enabled_slots(uint64_t dr7);

/* dr7_copy_slot - @dst with slot @n's Ln/Gn, R/Wn and LENn fields taken from @src. */
uint64_t dr7_copy_slot(uint64_t dst, uint64_t src, unsigned n);

/*
 * dr7_merge_guest - @host_dr7 with the slots of @guest_slots enabled as
 * @guest_dr7 enables them (their Ln/Gn, R/Wn and LENn fields copied).
 * This lets a guest keep breakpoints of its own in the slots the host
 * does not use while the host's are loaded in its place.  Slots that are
 * in both are left to @host_dr7.
 */
uint64_t dr7_merge_guest(uint64_t host_dr7, uint64_t guest_dr7, unsigned guest_slots);

/* Which guest watchpoint holds each slot. */
struct dr_alloc {
	bool used[DR_NUM_SLOTS];
	uint64_t owner[DR_NUM_SLOTS];
	unsigned reserved; /* slots never handed out (bit n = slot n) */
};

/* dr_alloc_init - all slots free. */
void dr_alloc_init(struct dr_alloc *a);

/*
 * dr_alloc_get - take @n free slots (1..DR_NUM_SLOTS) for @owner, lowest
 * indices first, and store their indices in @idx (room for @n).  All or
 * nothing.  Returns 0, -ENOSPC when fewer than @n slots are free (nothing
 * is taken), or -EINVAL for a bad @n.
 */
int dr_alloc_get(struct dr_alloc *a, uint64_t owner, unsigned n, unsigned *idx);

/* dr_alloc_put - free every slot @owner holds; returns how many it held. */
unsigned dr_alloc_put(struct dr_alloc *a, uint64_t owner);

/*
 * dr_alloc_owner - the owner of slot @slot into @owner.  Returns 0,
 * -ENOENT when the slot is free, -EINVAL when @slot >= DR_NUM_SLOTS.
 */
int dr_alloc_owner(const struct dr_alloc *a, unsigned slot, uint64_t *owner);

/*
 * dr_alloc_reserve - from now on hand out none of the slots in @mask
 * (the guest uses them itself); slots already taken stay with their
 * owners.  A later call replaces the mask.
 */
void dr_alloc_reserve(struct dr_alloc *a, unsigned mask);

/* dr_alloc_free_count - how many slots are free and not reserved. */
unsigned dr_alloc_free_count(const struct dr_alloc *a);

/* A debug exit's DR6, split by cause and matched against the armed slots. */
struct dr_exit {
	unsigned hit;	     /* B0-B3 as a mask (bit n = slot n) */
	unsigned data_hits;  /* hits on armed data slots: our watchpoints */
	unsigned exec_hits;  /* hits on armed exec slots */
	unsigned stray_hits; /* Bn of a slot not armed by us: the guest's
			      * own, or a matching disabled one (the CPU
			      * may set Bn for those too, SDM 18.2.3) */
	bool single_step;    /* BS */
	bool dr_access;	     /* BD */
	bool task_switch;    /* BT */
};

/*
 * dr_exit_decode - split @dr6 into @out and match its Bn bits against
 * @slots, the slots that were armed when the exit happened (NULL: none).
 */
void dr_exit_decode(uint64_t dr6, const struct dr_slot slots[DR_NUM_SLOTS], struct dr_exit *out);

/*
 * dr_exit_is_ours - whether the exit is one of our data watchpoints
 * firing.  Several causes can come together (a watchpoint and a single
 * step on the same instruction); when this is true the data hits are
 * ours to handle, and the caller still looks at the other fields.  When
 * false the exit is someone else's (a single step, the guest's own
 * breakpoint, a slot we did not arm): the caller must deal with it or
 * say so (dr_exit_describe), never drop it silently.
 */
static inline bool dr_exit_is_ours(const struct dr_exit *e)
{
	return e->data_hits != 0;
}

/*
 * dr_exit_describe - @e in words for a message, e.g. "data watchpoint
 * slot 0" or "single step, breakpoint slot 2 (not ours)", into @buf (@len bytes,
 * always terminated).  Returns @buf.
 */
const char *dr_exit_describe(const struct dr_exit *e, char *buf, size_t len);

#endif /* CSAN_WATCH_DEBUGREG_H */
