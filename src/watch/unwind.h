/* unwind.h: a guest stack from a vCPU's registers, by ORC, CFI or frame pointers. */
#ifndef CSAN_WATCH_UNWIND_H
#define CSAN_WATCH_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "csan/abi.h"

struct sym;
struct unwinder;

/*
 * Reads the 8 bytes at guest virtual @vaddr (any alignment) into *@val;
 * false when any of them does not translate or lies outside guest RAM.
 * The VMM implements it through the guest's page tables; it is called
 * with the struct sym's lock held and must not call back into sym or
 * unwind functions.
 */
typedef bool (*unwind_read_fn)(void *ctx, uint64_t vaddr, uint64_t *val);

/* The IP and the return addresses a report side can hold. */
#define UNWIND_MAX_PCS (1 + CSAN_REPORT_MAX_STACK)

/* unwind_stack flags. */
#define UNWIND_FP_ONLY 0x1u /* skip libdw's CFI unwinder */

/* How a stack was recovered (struct unwind_info.how bits). */
#define UNWIND_USED_CFI 0x1u
#define UNWIND_USED_FP	0x2u
#define UNWIND_USED_ORC 0x4u

struct unwind_info {
	unsigned how;	     /* UNWIND_USED_* */
	unsigned cfi_frames; /* PCs the CFI unwinder found, including the IP */
	char cfi_error[128]; /* why libdw stopped early ("" if it ended cleanly) */
	unsigned orc_frames; /* PCs the ORC unwinder found, including the IP */
	char orc_error[128]; /* why it stopped early ("" at the stack's end) */
};

/*
 * unwind_new - an unwinder over @sym's Dwfl: attaches a one-thread
 * "process" whose memory is whatever each unwind_stack call reads, and
 * reads the ELF's ORC tables (orc.h) when it is a Linux built with them.  A
 * Dwfl takes one attachment for its life, so make one unwinder per
 * struct sym, and free it only before sym_close.  Returns 0 with it in
 * @out, or -ENOMEM, or -EINVAL when dwfl_attach_state fails (message with
 * dwfl_errmsg in @why).
 */
int unwind_new(struct sym *sym, struct unwinder **out, char *why, size_t whylen);

/*
 * unwind_set_image_offset - the guest runs the vmlinux @offset bytes from
 * its link address (KASLR): its ORC entries are looked up that much lower.
 * Set it on the sym too (sym_set_image_offset).
 */
void unwind_set_image_offset(struct unwinder *unw, int64_t offset);

/* unwind_free - release @unw; NULL is a no-op. */
void unwind_free(struct unwinder *unw);

/* unwind_has_orc - whether @unw walks stacks by the kernel's ORC tables. */
bool unwind_has_orc(const struct unwinder *unw);

/*
 * unwind_stack - recover the call stack of a vCPU stopped with @regs:
 * @pcs[0] is regs->rip, the rest are return addresses (symbolize them
 * with SYM_RETADDR), at most @max (1..UNWIND_MAX_PCS) in all, reading
 * memory through @read(@ctx, ...).  On a kernel with ORC tables that
 * cover regs->rip, they alone are used (@flags notwithstanding).
 * Otherwise libdw's CFI unwinder goes first; where it stops with an
 * error (code without CFI, a bad read), the walk goes on along the %rbp
 * chain from the last frame it recovered.  @info (may be
 * NULL) tells which ways were used.  Returns the number of PCs (>= 1), or
 * -EINVAL for bad arguments.
 */
int unwind_stack(struct unwinder *unw, const struct csan_regs *regs, unwind_read_fn read, void *ctx,
		 unsigned flags, uint64_t *pcs, unsigned max, struct unwind_info *info);

/*
 * unwind_fp - walk the frame-pointer chain from @rbp: each frame holds the
 * caller's %rbp at [rbp] and the return address at [rbp + 8].  The walk
 * stops at a read failure, a zero return address, or a frame pointer that
 * is misaligned, below @lo (the stack pointer), not above the previous one
 * or too far from it, since a corrupt chain must not send it anywhere.
 * Stores at most @max return addresses in @pcs; returns how many.
 */
unsigned unwind_fp(uint64_t rbp, uint64_t lo, unwind_read_fn read, void *ctx, uint64_t *pcs,
		   unsigned max);

/*
 * unwind_fill_side - unwind @regs (as unwind_stack, @flags) into @side's
 * ip, ret[] and nret, marking it CSAN_MECH_HOST_UNWIND with the IP exact.
 * The caller fills in the access itself.  Returns 0 or -EINVAL.
 */
int unwind_fill_side(struct unwinder *unw, const struct csan_regs *regs, unwind_read_fn read,
		     void *ctx, unsigned flags, struct csan_report_side *side);

#endif /* CSAN_WATCH_UNWIND_H */
