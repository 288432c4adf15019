/* test-trap-plan.c: where the KCSAN traps go, and what they stand in for. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "tests/unit/check.h"
#include "watch/trap_plan.h"

#define BASE 0xffffffff81000000ull

/*
 * The shape of Linux 6.1's kcsan_setup_watchpoint with frame pointers,
 * cut short: prologue, a branch over a block, the epilogue's pops, RET,
 * int3 padding.
 */
static const uint8_t plain[] = {
	0x55,			/* 0: push %rbp */
	0x48, 0x89, 0xe5,	/* 1: mov %rsp,%rbp */
	0x41, 0x57,		/* 4: push %r15 */
	0x53,			/* 6: push %rbx */
	0x85, 0xd2,		/* 7: test %edx,%edx */
	0x74, 0x02,		/* 9: je 0xd */
	0x31, 0xc0,		/* b: xor %eax,%eax */
	0x5b,			/* d: pop %rbx */
	0x41, 0x5f,		/* e: pop %r15 */
	0x5d,			/* 10: pop %rbp */
	0xc3,			/* 11: ret */
	0xcc, 0xcc,		/* padding */
};

static void test_plain(void)
{
	struct trap_plan p;
	uint8_t code[TRAP_MAX_SITE_LEN];
	char why[200] = "";

	CHECK(trap_plan_function(plain, sizeof(plain), BASE, &p, why, sizeof(why)) == 0);
	/* push %r15: the first two-byte instruction, arguments untouched. */
	CHECK_EQ_U64(p.entry.addr, BASE + 4);
	CHECK_EQ_U64(p.entry.len, TRAP_LEN);
	CHECK_EQ_U64(p.entry.ninsn, 1);
	CHECK(p.entry.insn[0].op == TRAP_OP_PUSH && p.entry.insn[0].reg == 15);
	CHECK(memcmp(p.entry.orig, plain + 4, 2) == 0);
	CHECK_EQ_U64(p.nexits, 1);
	/* pop %r15; pop %rbx at 0xd is a branch target but comes before it. */
	CHECK_EQ_U64(p.exit[0].addr, BASE + 0xe);
	CHECK_EQ_U64(p.exit[0].len, TRAP_LEN);
	CHECK(p.exit[0].insn[0].op == TRAP_OP_POP && p.exit[0].insn[0].reg == 15);
	trap_site_code(&p.exit[0], 0xe5, code);
	CHECK(code[0] == TRAP_OUT_OPCODE && code[1] == 0xe5);
}

static uint64_t stack[4];
#define STACK_BASE 0x1000ull

static bool rd(void *ctx, uint64_t a, uint64_t *v)
{
	(void)ctx;
	if (a < STACK_BASE || a >= STACK_BASE + sizeof(stack) || (a & 7))
		return false;
	*v = stack[(a - STACK_BASE) / 8];
	return true;
}

static bool wr(void *ctx, uint64_t a, uint64_t v)
{
	(void)ctx;
	if (a < STACK_BASE || a >= STACK_BASE + sizeof(stack) || (a & 7))
		return false;
	stack[(a - STACK_BASE) / 8] = v;
	return true;
}

static void test_emulate(void)
{
	struct trap_plan p;
	uint64_t regs[16] = { 0 };
	char why[200];

	CHECK(trap_plan_function(plain, sizeof(plain), BASE, &p, why, sizeof(why)) == 0);
	/* The entry: push %r15. */
	regs[TRAP_REG_RSP] = STACK_BASE + 24;
	regs[15] = 0xf15;
	CHECK(trap_emulate(&p.entry, regs, rd, wr, NULL) == 0);
	CHECK_EQ_U64(regs[TRAP_REG_RSP], STACK_BASE + 16);
	CHECK_EQ_U64(stack[2], 0xf15);
	/* The exit: pop %r15. */
	regs[15] = 0;
	CHECK(trap_emulate(&p.exit[0], regs, rd, wr, NULL) == 0);
	CHECK_EQ_U64(regs[15], 0xf15);
	CHECK_EQ_U64(regs[TRAP_REG_RSP], STACK_BASE + 24);
	/* A stack that cannot be read is an error, not a guess. */
	regs[TRAP_REG_RSP] = 0x10;
	CHECK(trap_emulate(&p.exit[0], regs, rd, wr, NULL) == -EFAULT);
}

static void test_refused(void)
{
	/* A tail call: the watch would never see its end. */
	static const uint8_t tail[] = { 0x55, 0x48, 0x89, 0xe5, 0x5d, 0xe9, 0x00, 0x10, 0x00, 0x00 };
	/* A branch onto the RET skips the epilogue's trap. */
	static const uint8_t onto_ret[] = { 0x55, 0x48, 0x89, 0xe5, 0x41, 0x57, 0x74,
					    0x03, 0x41, 0x5f, 0x5d, 0xc3 };
	/* A prologue that is not pushes and moves. */
	static const uint8_t odd[] = { 0x48, 0x83, 0xec, 0x08, 0x5d, 0x41, 0x5f, 0xc3 };
	/* Only one-byte pushes before the arguments move (mov %rdi,%r12 is 3 bytes). */
	static const uint8_t short_pushes[] = { 0x55, 0x53, 0x48, 0x89, 0xfe, 0x41, 0x57,
						0x41, 0x5f, 0xc3 };
	struct trap_plan p;
	char why[200];

	CHECK(trap_plan_function(tail, sizeof(tail), BASE, &p, why, sizeof(why)) == -EINVAL);
	CHECK_CONTAINS(why, "tail call");
	CHECK(trap_plan_function(onto_ret, sizeof(onto_ret), BASE, &p, why, sizeof(why)) ==
	      -EINVAL);
	CHECK_CONTAINS(why, "lands on its return");
	CHECK(trap_plan_function(odd, sizeof(odd), BASE, &p, why, sizeof(why)) == -EINVAL);
	CHECK_CONTAINS(why, "prologue");
	/* mov %rdi,%rsi writes an argument before push %r15: too late for the entry. */
	CHECK(trap_plan_function(short_pushes, sizeof(short_pushes), BASE, &p, why,
				 sizeof(why)) == -EINVAL);
	CHECK_CONTAINS(why, "arguments");
}

int main(void)
{
	test_plain();
	test_emulate();
	test_refused();
	return check_exit_status("test-trap-plan");
}
