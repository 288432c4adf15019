/* insn.h: the instruction that made a data access, recovered from a debug trap's RIP. */
#ifndef CSAN_WATCH_INSN_H
#define CSAN_WATCH_INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A data breakpoint is a trap, not a fault: it is delivered after the
 * accessing instruction completes, with RIP at the next instruction (SDM
 * Vol. 3B, 18.2.4 and 18.3.1.2).  x86 cannot be decoded backwards, so the
 * instruction is found by decoding forward from a known boundary (the
 * start of the function holding RIP, from sym_function_at) until one ends
 * exactly at RIP.
 *
 * What this cannot see: after a taken branch through memory (call/jmp
 * through a watched pointer) or a ret, RIP is the branch target, not the
 * next instruction; and a data breakpoint inside a REP string instruction
 * that has iterations left stops with RIP at that same instruction.  In
 * both cases no instruction ends at RIP with the access, and the answer is
 * "unknown" rather than a guess.
 */

/* The longest x86 instruction (SDM Vol. 2A, 2.3.11). */
#define INSN_MAX_LEN 15

/* The most memory accesses one instruction is described with (push [mem]: 2). */
#define INSN_MAX_ACCESSES 2

/* Where an access goes. */
enum insn_mem {
	INSN_MEM_OPERAND, /* a memory operand of the instruction, explicit or a
			   * string instruction's [rsi]/[rdi] */
	INSN_MEM_STACK,	  /* the implicit stack slot of push, pop, call, ret... */
};

struct insn_access {
	enum insn_mem where;
	bool read, write;
	unsigned size; /* bytes */
};

/* How the instruction was found. */
enum insn_how {
	INSN_FORWARD,  /* decoded forward from the function start: certain */
	INSN_BACKWARD, /* the only instruction with a memory access that ends at
			* RIP when decoding from each of the 15 bytes before it */
};

struct insn_info {
	uint64_t addr; /* where it starts; addr + len == the trap's RIP */
	unsigned len;
	char text[192]; /* "mov dword ptr [rip + 0x1000], eax", Intel syntax */
	enum insn_how how;
	/* The union over accesses[], the summary a report needs. */
	bool reads, writes;
	unsigned mem_size; /* the explicit memory operand's size, else the
			    * stack access's; 0 when it touches no memory */
	bool atomic;	   /* a LOCK prefix, or XCHG with memory (implicitly
			    * locked): a read-modify-write no one can split */
	unsigned naccesses;
	struct insn_access accesses[INSN_MAX_ACCESSES];
};

/* Guest code around a trap. */
struct insn_code {
	uint64_t addr;	      /* guest address of bytes[0] */
	const uint8_t *bytes; /* guest code from addr up to (at least) the trap's RIP */
	size_t len;
	bool addr_is_start; /* addr is an instruction boundary (a function's
			     * first byte): decode forward from it */
};

/*
 * insn_before_trap - the instruction that ends at @rip in @code: decoded
 * forward from code->addr when code->addr_is_start; when that is not
 * known or does not land exactly on @rip (data in code, a wrong start),
 * the unique instruction with a memory access that starts in the
 * INSN_MAX_LEN bytes before @rip and ends at @rip.  Only bytes before
 * @rip are read.  Returns 0 with the instruction in @out; -ENOENT
 * ("unknown instruction": none or several candidates) or -EINVAL (@rip
 * not after code->addr, or past the bytes given), with the reason in @why
 * (@whylen bytes); -ENOMEM when the disassembler cannot start.
 */
int insn_before_trap(const struct insn_code *code, uint64_t rip, struct insn_info *out, char *why,
		     size_t whylen);

#endif /* CSAN_WATCH_INSN_H */
