/* trap_plan.h: port-I/O traps planted in a guest function, and what they stand in for. */
#ifndef CSAN_WATCH_TRAP_PLAN_H
#define CSAN_WATCH_TRAP_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * To learn when a guest function starts and returns without a debug
 * register (those stay free for data watches) and without int3 (with
 * KVM's software breakpoints every int3 of the guest's own, Linux's
 * text_poke_bp among them, would come to the VMM and need re-injecting),
 * the VMM overwrites one two-byte instruction in the function's prologue
 * and one in the epilogue before each RET with "out %al, $port" (E6 ib,
 * also two bytes): a KVM_EXIT_IO on every kind of KVM.  At the exit it
 * does what the replaced instruction would have done (a push, a pop, a
 * register move), and KVM steps past the OUT as for any port write: the
 * VMM does not move RIP.  One instruction of the same length keeps that
 * true for any site (the OUT and what it replaces end at the same byte);
 * the VMM plants the traps before the guest boots.
 *
 * A call site is the one exception: the OUT covers the first two bytes
 * of a five-byte CALL, and the VMM makes the call itself (pushes the
 * return address, sets RIP to the callee).  KVM steps past a port write
 * only when RIP is where the write left it (complete_fast_pio_out), so
 * the call's other three bytes are never run.  Such a site lets the VMM
 * act at a point inside the function (Linux KCSAN's delay, after it read
 * the watched value), and its stack depth, followed from the entry along
 * every branch, tells which call of the function it belongs to.
 *
 * The entry site comes before the prologue moves the arguments out of
 * their registers, and no branch lands on it; at an exit site no branch
 * lands after it (a path that skipped it would leave unseen).  A function
 * that leaves other than by RET (a tail call) cannot be planned.
 */

#define TRAP_OUT_OPCODE	 0xe6 /* OUT imm8, AL */
#define TRAP_LEN	 2    /* bytes of the OUT */
#define TRAP_MAX_REPLACED 1   /* instructions one site stands in for */
#define TRAP_MAX_SITE_LEN 8   /* bytes a site may replace (now TRAP_LEN) */
#define TRAP_MAX_EXITS	 8    /* RETs of one function */

/* What a replaced instruction did; registers in the ModRM numbering (rax 0 .. r15 15). */
enum trap_op {
	TRAP_OP_PUSH,  /* push reg */
	TRAP_OP_POP,   /* pop reg */
	TRAP_OP_MOV,   /* mov dst, src (64-bit registers) */
	TRAP_OP_LEAVE, /* mov rsp, rbp; pop rbp */
	TRAP_OP_NOP,
	TRAP_OP_CALL, /* call rel32: push the next instruction's address, go to target */
};

struct trap_insn {
	enum trap_op op;
	unsigned reg; /* push, pop, mov: the register written or pushed */
	unsigned src; /* mov: the register read */
	unsigned len;
	uint64_t target; /* call: the callee */
};

struct trap_site {
	uint64_t addr;
	unsigned len; /* bytes of the instruction replaced: TRAP_LEN, or a call's */
	/* Bytes the function has pushed and reserved below its return address when the site runs. */
	unsigned depth;
	unsigned ninsn;
	struct trap_insn insn[TRAP_MAX_REPLACED];
	uint8_t orig[TRAP_MAX_SITE_LEN];
};

struct trap_plan {
	struct trap_site entry;
	unsigned nexits;
	struct trap_site exit[TRAP_MAX_EXITS];
};

/*
 * trap_plan_function - decode the function at guest address @addr (@len
 * bytes of its code in @code) and choose its entry site and one site
 * before each RET.  Returns 0 with the plan in @out; -EINVAL with the
 * reason in @why (@whylen bytes) when the code cannot be decoded, leaves
 * by a jump elsewhere, has more RETs than TRAP_MAX_EXITS, or has no
 * two-byte push, pop or move where a site is needed; -ENOMEM when the
 * disassembler cannot start.
 */
int trap_plan_function(const uint8_t *code, size_t len, uint64_t addr, struct trap_plan *out,
		       char *why, size_t whylen);

/*
 * trap_plan_call - in the same function, the one direct call to guest
 * address @callee, as a site in @out whose depth is the stack depth
 * there.  Returns 0; -ENOENT when the function does not call @callee;
 * -EINVAL with the reason in @why when it calls it more than once, or
 * the depth there cannot be known (%rsp set other than by pushes, pops
 * and constant adjustments, or paths that reach it at different
 * depths); -ENOMEM when the disassembler cannot start.
 */
int trap_plan_call(const uint8_t *code, size_t len, uint64_t addr, uint64_t callee,
		   struct trap_site *out, char *why, size_t whylen);

/* trap_site_code - the bytes that replace @s: the OUT to @port (then NOPs, were it longer). */
void trap_site_code(const struct trap_site *s, uint8_t port, uint8_t out[TRAP_MAX_SITE_LEN]);

/* The stack as trap_emulate reaches it: 8 bytes at guest virtual @addr. */
typedef bool (*trap_read_fn)(void *ctx, uint64_t addr, uint64_t *val);
typedef bool (*trap_write_fn)(void *ctx, uint64_t addr, uint64_t val);

/*
 * trap_emulate - do what the instructions @s replaced would have done to
 * @regs (16 general registers, ModRM order; rsp is regs[4], rbp regs[5]),
 * *@rip and the stack: *@rip changes only at a call site, to the callee.
 * Returns 0, or -EFAULT when a stack slot could not be read or written
 * (@regs is then partly updated: the caller must not write it back).
 */
int trap_emulate(const struct trap_site *s, uint64_t regs[16], uint64_t *rip, trap_read_fn read,
		 trap_write_fn write, void *ctx);

#define TRAP_REG_RSP 4
#define TRAP_REG_RBP 5

#endif /* CSAN_WATCH_TRAP_PLAN_H */
