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
	CHECK_EQ_U64(p.entry.depth, 8); /* after push %rbp */
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
	uint64_t regs[16] = { 0 }, rip = BASE + 4;
	char why[200];

	CHECK(trap_plan_function(plain, sizeof(plain), BASE, &p, why, sizeof(why)) == 0);
	/* The entry: push %r15. */
	regs[TRAP_REG_RSP] = STACK_BASE + 24;
	regs[15] = 0xf15;
	CHECK(trap_emulate(&p.entry, regs, &rip, rd, wr, NULL) == 0);
	CHECK_EQ_U64(regs[TRAP_REG_RSP], STACK_BASE + 16);
	CHECK_EQ_U64(stack[2], 0xf15);
	/* The exit: pop %r15. */
	regs[15] = 0;
	CHECK(trap_emulate(&p.exit[0], regs, &rip, rd, wr, NULL) == 0);
	CHECK_EQ_U64(regs[15], 0xf15);
	CHECK_EQ_U64(regs[TRAP_REG_RSP], STACK_BASE + 24);
	/* A stack that cannot be read is an error, not a guess. */
	regs[TRAP_REG_RSP] = 0x10;
	CHECK(trap_emulate(&p.exit[0], regs, &rip, rd, wr, NULL) == -EFAULT);
	/* A push or a pop leaves RIP for KVM to step past the OUT. */
	CHECK_EQ_U64(rip, BASE + 4);
}

/*
 * The shape of the ORC test kernel's kcsan_setup_watchpoint: pushes and
 * a reserved frame, an early return placed before the call of the delay
 * (its pops come first in the code, not on the call's path), the call.
 */
#define CALLEE (BASE + 0x100)
static const uint8_t with_call[] = {
	0x41, 0x57,			  /* 0: push %r15 */
	0x55,				  /* 2: push %rbp */
	0x48, 0x89, 0xfd,		  /* 3: mov %rdi,%rbp */
	0x53,				  /* 6: push %rbx */
	0x48, 0x83, 0xec, 0x30,		  /* 7: sub $0x30,%rsp */
	0x85, 0xd2,			  /* b: test %edx,%edx */
	0x75, 0x09,			  /* d: jne 0x18 */
	0x48, 0x83, 0xc4, 0x30,		  /* f: add $0x30,%rsp */
	0x5b,				  /* 13: pop %rbx */
	0x5d,				  /* 14: pop %rbp */
	0x41, 0x5f,			  /* 15: pop %r15 */
	0xc3,				  /* 17: ret */
	0x48, 0x8b, 0x45, 0x00,		  /* 18: mov 0x0(%rbp),%rax */
	0x48, 0x89, 0x44, 0x24, 0x08,	  /* 1c: mov %rax,0x8(%rsp) */
	0xe8, 0xda, 0x00, 0x00, 0x00,	  /* 21: call BASE+0x100 */
	0x48, 0x8b, 0x44, 0x24, 0x08,	  /* 26: mov 0x8(%rsp),%rax */
	0x48, 0x83, 0xc4, 0x30,		  /* 2b: add $0x30,%rsp */
	0x5b,				  /* 2f: pop %rbx */
	0x5d,				  /* 30: pop %rbp */
	0x41, 0x5f,			  /* 31: pop %r15 */
	0xc3,				  /* 33: ret */
	0xcc,				  /* padding */
};

static void test_call_site(void)
{
	struct trap_plan p;
	struct trap_site c;
	uint64_t regs[16] = { 0 }, rip = BASE + 0x21;
	char why[200] = "";

	CHECK(trap_plan_function(with_call, sizeof(with_call), BASE, &p, why, sizeof(why)) == 0);
	CHECK_EQ_U64(p.entry.addr, BASE);
	CHECK_EQ_U64(p.entry.depth, 0);
	CHECK_EQ_U64(p.nexits, 2);
	CHECK(trap_plan_call(with_call, sizeof(with_call), BASE, CALLEE, &c, why, sizeof(why)) ==
	      0);
	CHECK_EQ_U64(c.addr, BASE + 0x21);
	CHECK_EQ_U64(c.len, 5);
	CHECK(c.ninsn == 1 && c.insn[0].op == TRAP_OP_CALL && c.insn[0].target == CALLEE);
	CHECK(memcmp(c.orig, with_call + 0x21, 5) == 0);
	/* Three pushes and 0x30 reserved, on the path through the jne, not the early return. */
	CHECK_EQ_U64(c.depth, 3 * 8 + 0x30);
	/* The call made: the return address pushed, RIP at the callee. */
	regs[TRAP_REG_RSP] = STACK_BASE + 32;
	CHECK(trap_emulate(&c, regs, &rip, rd, wr, NULL) == 0);
	CHECK_EQ_U64(rip, CALLEE);
	CHECK_EQ_U64(regs[TRAP_REG_RSP], STACK_BASE + 24);
	CHECK_EQ_U64(stack[3], BASE + 0x26);
	/* No such call. */
	CHECK(trap_plan_call(with_call, sizeof(with_call), BASE, CALLEE + 1, &c, why,
			     sizeof(why)) == -ENOENT);
}

static void test_call_refused(void)
{
	/* push %rbp; and $-16,%rsp; call; leave; ret: the depth at the call is not known. */
	static const uint8_t aligned[] = { 0x55, 0x48, 0x83, 0xe4, 0xf0, 0xe8, 0xf6,
					   0x00, 0x00, 0x00, 0xc9, 0xc3 };
	/* je over a push to a join: two depths there. */
	static const uint8_t differ[] = { 0x55, 0x74, 0x01, 0x53, 0xe8, 0xf7, 0x00,
					  0x00, 0x00, 0x5d, 0xc3 };
	/* Two calls of the callee: which one is KCSAN's delay is not known. */
	static const uint8_t twice[] = { 0x55, 0xe8, 0xfa, 0x00, 0x00, 0x00, 0xe8,
					 0xf5, 0x00, 0x00, 0x00, 0x5d, 0xc3 };
	struct trap_site c;
	char why[200];

	CHECK(trap_plan_call(aligned, sizeof(aligned), BASE, CALLEE, &c, why, sizeof(why)) ==
	      -EINVAL);
	CHECK_CONTAINS(why, "stack depth");
	CHECK(trap_plan_call(differ, sizeof(differ), BASE, CALLEE, &c, why, sizeof(why)) ==
	      -EINVAL);
	CHECK_CONTAINS(why, "different stack depths");
	CHECK(trap_plan_call(twice, sizeof(twice), BASE, CALLEE, &c, why, sizeof(why)) == -EINVAL);
	CHECK_CONTAINS(why, "2 calls");
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
	test_call_site();
	test_call_refused();
	return check_exit_status("test-trap-plan");
}
