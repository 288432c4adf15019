/* test-orc.c: the ORC unwinder on a synthetic table and a synthetic guest stack. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "watch/orc.h"
#include "../unit/check.h"
#include "watch-test.h"

/* orc_types.h's base registers and the V1 types, as a kernel build writes them. */
#define R_UNDEF	 0
#define R_PREVSP 1
#define R_BP	 4
#define R_SP	 5
#define R_R10	 6
#define T_CALL	 0
#define T_REGS	 1
#define T_PART	 2

/* Guest memory: two stacks (an IRQ stack and a task stack), 4 KiB each. */
#define IRQ_STACK  0xffffc90000010000ull
#define TASK_STACK 0xffffc90000020000ull
#define STACK_SIZE 4096

struct mem {
	uint64_t irq[STACK_SIZE / 8], task[STACK_SIZE / 8];
};

static uint64_t *slot(struct mem *m, uint64_t a)
{
	if (a >= IRQ_STACK && a + 8 <= IRQ_STACK + STACK_SIZE && !(a & 7))
		return &m->irq[(a - IRQ_STACK) / 8];
	if (a >= TASK_STACK && a + 8 <= TASK_STACK + STACK_SIZE && !(a & 7))
		return &m->task[(a - TASK_STACK) / 8];
	return NULL;
}

static bool mem_read(void *ctx, uint64_t a, uint64_t *v)
{
	uint64_t *p = slot(ctx, a);

	if (!p)
		return false;
	*v = *p;
	return true;
}

static void put(struct mem *m, uint64_t a, uint64_t v)
{
	*slot(m, a) = v;
}

/* The code the table describes: five "functions" and the end of text. */
#define LEAF	   0xffffffff81001000ull /* push %rbp at +0; frame at +1 */
#define MID	   0xffffffff81002000ull /* a 24-byte frame, no frame pointer */
#define ENTRY	   0xffffffff81003000ull /* interrupt entry: a full pt_regs at SP */
#define PARTIAL	   0xffffffff81003800ull /* entry code with only the iret frame */
#define TASKFN	   0xffffffff81004000ull /* a frame-pointer frame */
#define TASK_TOP   0xffffffff81004100ull /* the task's first frame: end of stack */
#define VIA_R10	   0xffffffff81004200ull /* the CFA is in %r10 (a realigned stack) */
#define TEXT_END   0xffffffff81005000ull /* a no-information terminator */
#define IP_SECADDR 0xffffffff82000000ull

struct row {
	uint64_t ip;
	int16_t sp_off, bp_off;
	unsigned sp_reg, bp_reg, type, end;
};

/* Deliberately not sorted: the reader must sort what it is given. */
static const struct row rows[] = {
	{ MID, 24, 0, R_SP, R_UNDEF, T_CALL, 0 },
	{ LEAF, 8, 0, R_SP, R_UNDEF, T_CALL, 0 },
	{ LEAF + 1, 16, -16, R_SP, R_PREVSP, T_CALL, 0 },
	{ ENTRY, 0, 0, R_SP, R_UNDEF, T_REGS, 0 },
	{ PARTIAL, 0, 0, R_SP, R_UNDEF, T_PART, 0 },
	{ TASKFN, 16, -16, R_BP, R_PREVSP, T_CALL, 0 },
	{ TASK_TOP, 0, 0, R_UNDEF, R_UNDEF, 0, 1 },
	{ VIA_R10, 8, 0, R_R10, R_UNDEF, T_CALL, 0 },
	{ TEXT_END, 0, 0, R_UNDEF, R_UNDEF, 0, 0 },
};
#define NROWS (sizeof(rows) / sizeof(rows[0]))

static unsigned char ip_sec[4 * NROWS], orc_sec[6 * NROWS];

/* Encode the rows as the two sections are laid out in a vmlinux (V1 format). */
static void encode(void)
{
	size_t i;

	for (i = 0; i < NROWS; i++) {
		int32_t rel = (int32_t)(rows[i].ip - (IP_SECADDR + 4 * i));
		uint16_t f = (uint16_t)(rows[i].sp_reg | rows[i].bp_reg << 4 | rows[i].type << 8 |
					rows[i].end << 10);

		memcpy(ip_sec + 4 * i, &rel, 4);
		memcpy(orc_sec + 6 * i, &rows[i].sp_off, 2);
		memcpy(orc_sec + 6 * i + 2, &rows[i].bp_off, 2);
		memcpy(orc_sec + 6 * i + 4, &f, 2);
	}
}

/*
 * A leaf interrupted on the IRQ stack, called from MID, called from the
 * entry code, which saved a pt_regs for TASKFN interrupted on the task
 * stack, called from the task's first frame.
 */
#define S  (IRQ_STACK + 0x800) /* the leaf's SP at the trap */
#define T  (TASK_STACK + 0x400)
#define B0 0x1111000ull /* some non-frame %rbp of MID's caller */
#define B1 (T + 0x20)	/* TASKFN's frame pointer */
#define PT (S + 40)	/* the pt_regs the entry code saved */

static void build_stack(struct mem *m, struct csan_regs *r)
{
	memset(m, 0, sizeof(*m));
	put(m, S, B0);			    /* leaf: push %rbp */
	put(m, S + 8, MID + 0x10);	    /* into MID */
	put(m, S + 32, ENTRY + 8);	    /* MID's frame is 24 bytes: into the entry code */
	put(m, PT + 8 * 4, B1);		    /* pt_regs->bp */
	put(m, PT + 8 * 16, TASKFN + 0x10); /* pt_regs->ip */
	put(m, PT + 8 * 17, 0x10);	    /* pt_regs->cs: kernel */
	put(m, PT + 8 * 19, T);		    /* pt_regs->sp */
	put(m, B1, 0);			    /* TASKFN's caller had no frame pointer */
	put(m, B1 + 8, TASK_TOP + 8);
	memset(r, 0, sizeof(*r));
	r->rip = LEAF + 5;
	r->rsp = S;
	r->rbp = 0x2222000ull; /* the leaf does not use it for its frame */
}

static void test_full_walk(struct orc_table *t)
{
	struct mem m;
	struct csan_regs r;
	struct orc_result res;
	uint64_t pcs[16];
	int n;

	build_stack(&m, &r);
	n = orc_unwind(t, &r, mem_read, &m, NULL, NULL, pcs, 16, &res);
	CHECK_EQ_U64(n, 5);
	CHECK_EQ_U64(pcs[0], LEAF + 5);
	CHECK_EQ_U64(pcs[1], MID + 0x10);
	CHECK_EQ_U64(pcs[2], ENTRY + 8);
	CHECK_EQ_U64(pcs[3], TASKFN + 0x10);
	CHECK_EQ_U64(pcs[4], TASK_TOP + 8);
	CHECK_EQ_U64(res.end, ORC_END_STACK);

	/* @max cuts the walk and says so. */
	n = orc_unwind(t, &r, mem_read, &m, NULL, NULL, pcs, 3, &res);
	CHECK_EQ_U64(n, 3);
	CHECK_EQ_U64(res.end, ORC_END_FULL);

	/* Just at the leaf's push (before it): the CFA is SP + 8. */
	put(&m, S + 8, MID + 0x10);
	r.rip = LEAF;
	r.rsp = S + 8;
	n = orc_unwind(t, &r, mem_read, &m, NULL, NULL, pcs, 16, &res);
	CHECK_EQ_U64(n, 5);
	CHECK_EQ_U64(pcs[1], MID + 0x10);
}

static void test_stops(struct orc_table *t)
{
	struct mem m;
	struct csan_regs r;
	struct orc_result res;
	uint64_t pcs[16];
	int n;

	/* An IP outside the table: not ORC's to walk. */
	build_stack(&m, &r);
	r.rip = 0xffffffffa0001000ull; /* module text */
	CHECK_EQ_U64(orc_unwind(t, &r, mem_read, &m, NULL, NULL, pcs, 16, &res), 0);
	r.rip = LEAF - 1;
	CHECK_EQ_U64(orc_unwind(t, &r, mem_read, &m, NULL, NULL, pcs, 16, &res), 0);
	r.rip = TEXT_END + 4; /* a terminator: no information */
	CHECK_EQ_U64(orc_unwind(t, &r, mem_read, &m, NULL, NULL, pcs, 16, &res), 0);
	CHECK(!orc_covers(t, TEXT_END + 0x10000));
	CHECK(orc_covers(t, TASKFN + 3));

	/* A return address into module text: kept, then the walk stops. */
	build_stack(&m, &r);
	put(&m, S + 8, 0xffffffffa0001234ull);
	n = orc_unwind(t, &r, mem_read, &m, NULL, NULL, pcs, 16, &res);
	CHECK_EQ_U64(n, 2);
	CHECK_EQ_U64(pcs[1], 0xffffffffa0001234ull);
	CHECK_EQ_U64(res.end, ORC_END_NO_ORC);

	/* A stack that cannot be read stops it, naming the address. */
	build_stack(&m, &r);
	r.rsp = 0x1000;
	n = orc_unwind(t, &r, mem_read, &m, NULL, NULL, pcs, 16, &res);
	CHECK_EQ_U64(n, 1);
	CHECK_EQ_U64(res.end, ORC_END_ERROR);
	CHECK_CONTAINS(res.why, "0x1008");

	/* A pt_regs from user mode ends the kernel stack there. */
	build_stack(&m, &r);
	put(&m, PT + 8 * 17, 0x33);
	n = orc_unwind(t, &r, mem_read, &m, NULL, NULL, pcs, 16, &res);
	CHECK_EQ_U64(n, 3);
	CHECK_EQ_U64(res.end, ORC_END_USER);

	/* A terminator entry (no information) is an error, not an end. */
	build_stack(&m, &r);
	put(&m, S + 8, TEXT_END + 0x20);
	n = orc_unwind(t, &r, mem_read, &m, NULL, NULL, pcs, 16, &res);
	CHECK_EQ_U64(n, 2);
	CHECK_EQ_U64(res.end, ORC_END_ERROR);

	/* A return address that sends the stack downwards is refused. */
	build_stack(&m, &r);
	put(&m, S + 8, TASKFN + 0x10);
	put(&m, S, S - 0x100); /* the leaf's saved %rbp: TASKFN's CFA is below the SP */
	n = orc_unwind(t, &r, mem_read, &m, NULL, NULL, pcs, 16, &res);
	CHECK_EQ_U64(n, 2);
	CHECK_EQ_U64(res.end, ORC_END_ERROR);
	CHECK_CONTAINS(res.why, "wrong way");
}

/* Registers ORC needs: known at the trap, lost after a call frame. */
static void test_registers(struct orc_table *t)
{
	struct mem m;
	struct csan_regs r;
	struct orc_result res;
	uint64_t pcs[16];
	int n;

	build_stack(&m, &r);
	r.rip = VIA_R10 + 4;
	r.r10 = S + 8; /* the CFA is %r10 itself (no offset): the return address at S */
	put(&m, S, TASK_TOP + 8);
	n = orc_unwind(t, &r, mem_read, &m, NULL, NULL, pcs, 16, &res);
	CHECK_EQ_U64(n, 2);
	CHECK_EQ_U64(pcs[1], TASK_TOP + 8);
	CHECK_EQ_U64(res.end, ORC_END_STACK);

	/* The same function reached through a call: %r10 is unknown there. */
	build_stack(&m, &r);
	put(&m, S + 8, VIA_R10 + 4);
	n = orc_unwind(t, &r, mem_read, &m, NULL, NULL, pcs, 16, &res);
	CHECK_EQ_U64(n, 2);
	CHECK_EQ_U64(res.end, ORC_END_ERROR);
	CHECK_CONTAINS(res.why, "lost");
}

/* An iret frame: IP and SP from it, %rbp kept from the trap's registers. */
static void test_partial(struct orc_table *t)
{
	struct mem m;
	struct csan_regs r;
	struct orc_result res;
	uint64_t pcs[16];
	int n;

	build_stack(&m, &r);
	r.rip = PARTIAL + 2;
	r.rsp = S;
	r.rbp = B1;
	put(&m, S, TASKFN + 0x10); /* iret frame: ip, cs, flags, sp, ss */
	put(&m, S + 8, 0x10);
	put(&m, S + 24, T);
	n = orc_unwind(t, &r, mem_read, &m, NULL, NULL, pcs, 16, &res);
	CHECK_EQ_U64(n, 3);
	CHECK_EQ_U64(pcs[1], TASKFN + 0x10);
	CHECK_EQ_U64(pcs[2], TASK_TOP + 8);
	CHECK_EQ_U64(res.end, ORC_END_STACK);
}

/* The newer layout (.orc_header kernels): type:3 with an explicit end type. */
static void test_v2(void)
{
	unsigned char ips[8], orcs[12];
	struct orc_table *t;
	struct mem m;
	struct csan_regs r;
	uint64_t pcs[4];
	struct orc_result res;
	int32_t rel;
	int16_t off = 8, zero = 0;
	uint16_t call = R_SP | 2 << 8, end = 1 << 8;

	rel = (int32_t)(LEAF - IP_SECADDR);
	memcpy(ips, &rel, 4);
	rel = (int32_t)(MID - (IP_SECADDR + 4));
	memcpy(ips + 4, &rel, 4);
	memcpy(orcs, &off, 2), memcpy(orcs + 2, &zero, 2), memcpy(orcs + 4, &call, 2);
	memcpy(orcs + 6, &zero, 2), memcpy(orcs + 8, &zero, 2), memcpy(orcs + 10, &end, 2);
	CHECK_EQ_U64(orc_table_new(ips, IP_SECADDR, orcs, 2, ORC_FORMAT_V2, 0, &t), 0);
	memset(&m, 0, sizeof(m));
	memset(&r, 0, sizeof(r));
	r.rip = LEAF;
	r.rsp = S;
	put(&m, S, MID + 4);
	CHECK_EQ_U64(orc_unwind(t, &r, mem_read, &m, NULL, NULL, pcs, 4, &res), 2);
	CHECK_EQ_U64(pcs[1], MID + 4);
	CHECK_EQ_U64(res.end, ORC_END_STACK);
	orc_free(t);
}

int main(void)
{
	struct orc_table *t;
	char why[256];

	encode();
	CHECK_EQ_U64(orc_table_new(ip_sec, IP_SECADDR, orc_sec, NROWS, ORC_FORMAT_V1,
				   TEXT_END + 0x100, &t),
		     0);
	CHECK_EQ_U64(orc_entries(t), NROWS);
	test_full_walk(t);
	test_stops(t);
	test_registers(t);
	test_partial(t);
	orc_free(t);
	test_v2();

	/* An ELF without ORC sections: no table, no error. */
	CHECK_EQ_U64(orc_load(symtest_path(), &t, why, sizeof(why)), 0);
	CHECK(t == NULL);
	CHECK_EQ_U64(orc_load("/nonexistent/vmlinux", &t, why, sizeof(why)), (uint64_t)-ENOENT);
	CHECK_CONTAINS(why, "/nonexistent/vmlinux");
	return check_exit_status("test-orc");
}
