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

/*
 * One walk: build_stack's stack and registers, changed as the case says,
 * and what orc_unwind must find there.
 */
struct walk_case {
	const char *name;
	uint64_t rip, rsp, rbp, r10; /* 0: as build_stack leaves it */
	struct {
		uint64_t at, val;
	} put[3];	 /* stack words to change (at 0: none) */
	unsigned max;	 /* PCs asked for; 0: 16 */
	int n;		 /* PCs found */
	uint64_t pc[5];	 /* pcs[i] (0: not checked) */
	int end;	 /* res.end, or -1: not checked (nothing walked) */
	const char *why; /* in res.why, or NULL */
};

#define NOT_CHECKED (-1)

static const struct walk_case walks[] = {
	/* The whole chain, from the IRQ stack through the pt_regs to the task's end. */
	{ .name = "full walk",
	  .n = 5,
	  .pc = { LEAF + 5, MID + 0x10, ENTRY + 8, TASKFN + 0x10, TASK_TOP + 8 },
	  .end = ORC_END_STACK },
	/* @max cuts the walk and says so. */
	{ .name = "max cuts the walk", .max = 3, .n = 3, .end = ORC_END_FULL },
	/* Just at the leaf's push (before it): the CFA is SP + 8. */
	{ .name = "at the leaf's push",
	  .rip = LEAF,
	  .rsp = S + 8, /* build_stack's return address into MID is there */
	  .n = 5,
	  .pc = { 0, MID + 0x10 },
	  .end = NOT_CHECKED },

	/* An IP outside the table: not ORC's to walk. */
	{ .name = "IP in module text", .rip = 0xffffffffa0001000ull, .end = NOT_CHECKED },
	{ .name = "IP before the table", .rip = LEAF - 1, .end = NOT_CHECKED },
	{ .name = "IP at a terminator (no information)", .rip = TEXT_END + 4, .end = NOT_CHECKED },
	/* A return address into module text: kept, then the walk stops. */
	{ .name = "return address into module text",
	  .put = { { S + 8, 0xffffffffa0001234ull } },
	  .n = 2,
	  .pc = { 0, 0xffffffffa0001234ull },
	  .end = ORC_END_NO_ORC },
	/* A stack that cannot be read stops it, naming the address. */
	{ .name = "unreadable stack",
	  .rsp = 0x1000,
	  .n = 1,
	  .end = ORC_END_ERROR,
	  .why = "0x1008" },
	/* A pt_regs from user mode ends the kernel stack there. */
	{ .name = "pt_regs from user mode",
	  .put = { { PT + 8 * 17, 0x33 } },
	  .n = 3,
	  .end = ORC_END_USER },
	/* A terminator entry (no information) is an error, not an end. */
	{ .name = "return address at a terminator",
	  .put = { { S + 8, TEXT_END + 0x20 } },
	  .n = 2,
	  .end = ORC_END_ERROR },
	/* A return address that sends the stack downwards is refused. */
	{ .name = "stack going the wrong way",
	  /* the leaf's saved %rbp: TASKFN's CFA is below the SP */
	  .put = { { S + 8, TASKFN + 0x10 }, { S, S - 0x100 } },
	  .n = 2,
	  .end = ORC_END_ERROR,
	  .why = "wrong way" },

	/* Registers ORC needs: known at the trap, lost after a call frame. */
	{ .name = "CFA in %r10 at the trap",
	  .rip = VIA_R10 + 4,
	  .r10 = S + 8, /* the CFA is %r10 itself (no offset): the return address at S */
	  .put = { { S, TASK_TOP + 8 } },
	  .n = 2,
	  .pc = { 0, TASK_TOP + 8 },
	  .end = ORC_END_STACK },
	/* The same function reached through a call: %r10 is unknown there. */
	{ .name = "CFA in %r10 after a call",
	  .put = { { S + 8, VIA_R10 + 4 } },
	  .n = 2,
	  .end = ORC_END_ERROR,
	  .why = "lost" },

	/* An iret frame: IP and SP from it, %rbp kept from the trap's registers. */
	{ .name = "iret frame",
	  .rip = PARTIAL + 2,
	  .rsp = S,
	  .rbp = B1,
	  /* iret frame: ip, cs, flags, sp, ss */
	  .put = { { S, TASKFN + 0x10 }, { S + 8, 0x10 }, { S + 24, T } },
	  .n = 3,
	  .pc = { 0, TASKFN + 0x10, TASK_TOP + 8 },
	  .end = ORC_END_STACK },
};

static void test_walks(struct orc_table *t)
{
	size_t i, k;

	for (i = 0; i < sizeof(walks) / sizeof(walks[0]); i++) {
		const struct walk_case *c = &walks[i];
		int before = check_failures, n;
		struct orc_result res;
		struct csan_regs r;
		uint64_t pcs[16];
		struct mem m;

		build_stack(&m, &r);
		r.rip = c->rip ? c->rip : r.rip;
		r.rsp = c->rsp ? c->rsp : r.rsp;
		r.rbp = c->rbp ? c->rbp : r.rbp;
		r.r10 = c->r10 ? c->r10 : r.r10;
		for (k = 0; k < sizeof(c->put) / sizeof(c->put[0]) && c->put[k].at; k++)
			put(&m, c->put[k].at, c->put[k].val);
		n = orc_unwind(t, &r, mem_read, &m, NULL, NULL, pcs, c->max ? c->max : 16, &res);
		CHECK_EQ_U64(n, c->n);
		for (k = 0; k < sizeof(c->pc) / sizeof(c->pc[0]) && (int)k < n; k++)
			if (c->pc[k])
				CHECK_EQ_U64(pcs[k], c->pc[k]);
		if (c->end != NOT_CHECKED)
			CHECK_EQ_U64(res.end, c->end);
		if (c->why)
			CHECK_CONTAINS(res.why, c->why);
		check_case_done(c->name, before);
	}
	CHECK(!orc_covers(t, TEXT_END + 0x10000));
	CHECK(orc_covers(t, TASKFN + 3));
	/* Moved as one block (KASLR): looked up the offset lower. */
	orc_set_offset(t, 0x1000000);
	CHECK(orc_covers(t, TASKFN + 3 + 0x1000000));
	CHECK(!orc_covers(t, TEXT_END + 0x10000 + 0x1000000));
	orc_set_offset(t, 0);
	CHECK(orc_covers(t, TASKFN + 3));
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
	test_walks(t);
	orc_free(t);
	test_v2();

	/* An ELF without ORC sections: no table, no error. */
	CHECK_EQ_U64(orc_load(symtest_path(), &t, why, sizeof(why)), 0);
	CHECK(t == NULL);
	CHECK_EQ_U64(orc_load("/nonexistent/vmlinux", &t, why, sizeof(why)), (uint64_t)-ENOENT);
	CHECK_CONTAINS(why, "/nonexistent/vmlinux");
	return check_exit_status("test-orc");
}
