/* test-unwind.c: unwinding a fake guest stack built from symtest.elf's code. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "watch/sym.h"
#include "watch/unwind.h"
#include "../unit/check.h"
#include "watch-test.h"

/*
 * The fake stack: 4 KiB of "guest memory" at STACK_BASE, read through the
 * same callback shape the VMM provides.  Frames are laid out as the code
 * in symtest.elf leaves them (push %rbp; mov %rsp,%rbp: saved %rbp at
 * [rbp], return address at [rbp + 8]), so CFI and frame pointers agree.
 */
#define STACK_BASE 0x7000000ull
#define STACK_SIZE 4096

struct mem {
	uint64_t words[STACK_SIZE / 8];
	unsigned reads;
};

static bool mem_read(void *ctx, uint64_t vaddr, uint64_t *val)
{
	struct mem *m = ctx;

	m->reads++;
	if (vaddr < STACK_BASE || vaddr > STACK_BASE + STACK_SIZE - 8)
		return false;
	memcpy(val, (const char *)m->words + (vaddr - STACK_BASE), 8);
	return true;
}

static void put(struct mem *m, uint64_t vaddr, uint64_t v)
{
	memcpy((char *)m->words + (vaddr - STACK_BASE), &v, 8);
}

/* A frame at @rbp: the caller's frame pointer and the return address. */
static void frame(struct mem *m, uint64_t rbp, uint64_t caller_rbp, uint64_t ret)
{
	put(m, rbp, caller_rbp);
	put(m, rbp + 8, ret);
}

/* Addresses in symtest.elf (gen-symtest.sh lists them). */
#define PC_LEAF_BODY	    0x40101eull /* in leaf, frame set up */
#define RA_INTO_MID	    0x40103cull /* after mid's call to leaf */
#define RA_INTO_TOP	    0x40105cull /* after top's call to mid */
#define RA_INTO_START_TOP   0x401133ull /* after _start's call to top */
#define RA_INTO_ASM	    0x401009ull /* after asm_thunk's call to mid (no CFI) */
#define RA_INTO_TOP_VIA_ASM 0x40107cull /* after top_via_asm's call to asm_thunk */
#define RA_INTO_START_ASM   0x401144ull /* after _start's call to top_via_asm */
#define PC_SLOW_PATH	    0x401092ull /* in csan_slow_path, which has no frame */
#define RA_INTO_WRITER	    0x401110ull /* after writer's call to __tsan_write4 */
#define RA_INTO_START_W	    0x401156ull /* after _start's call to writer */

#define F_START (STACK_BASE + 0xf00)
#define F_TOP	(STACK_BASE + 0xe00)
#define F_MID	(STACK_BASE + 0xd00)
#define F_LEAF	(STACK_BASE + 0xc00)
#define F_ASM	(STACK_BASE + 0xd80)

/* _start <- top <- mid <- leaf, stopped in leaf. */
static struct csan_regs chain_plain(struct mem *m)
{
	memset(m, 0, sizeof(*m));
	frame(m, F_START, 0, 0); /* the outermost frame: no caller */
	frame(m, F_TOP, F_START, RA_INTO_START_TOP);
	frame(m, F_MID, F_TOP, RA_INTO_TOP);
	frame(m, F_LEAF, F_MID, RA_INTO_MID);
	return (struct csan_regs){ .rip = PC_LEAF_BODY, .rbp = F_LEAF, .rsp = F_LEAF - 0x10 };
}

static void check_pcs(const uint64_t *got, int n, const uint64_t *want, int nwant)
{
	int i;

	CHECK_EQ_U64(n, nwant);
	for (i = 0; i < n && i < nwant; i++)
		CHECK_EQ_U64(got[i], want[i]);
}

static void test_cfi_and_fp_agree(struct unwinder *u)
{
	static const uint64_t want[] = { PC_LEAF_BODY, RA_INTO_MID, RA_INTO_TOP,
					 RA_INTO_START_TOP };
	struct unwind_info info;
	uint64_t pcs[UNWIND_MAX_PCS];
	struct mem m;
	struct csan_regs r = chain_plain(&m);
	int n;

	n = unwind_stack(u, &r, mem_read, &m, 0, pcs, UNWIND_MAX_PCS, &info);
	check_pcs(pcs, n, want, 4);
	CHECK_EQ_U64(info.how, UNWIND_USED_CFI);
	CHECK_EQ_U64(info.cfi_frames, 4);
	CHECK(info.cfi_error[0] == '\0');
	n = unwind_stack(u, &r, mem_read, &m, UNWIND_FP_ONLY, pcs, UNWIND_MAX_PCS, &info);
	check_pcs(pcs, n, want, 4);
	CHECK_EQ_U64(info.how, UNWIND_USED_FP);
	/* A short buffer is filled, not overrun. */
	pcs[2] = 0xdead;
	n = unwind_stack(u, &r, mem_read, &m, 0, pcs, 2, NULL);
	check_pcs(pcs, n, want, 2);
	CHECK_EQ_U64(pcs[2], 0xdead);
}

/* _start <- top_via_asm <- asm_thunk (no CFI) <- mid <- leaf. */
static void test_through_asm(struct unwinder *u)
{
	static const uint64_t want[] = { PC_LEAF_BODY, RA_INTO_MID, RA_INTO_ASM,
					 RA_INTO_TOP_VIA_ASM, RA_INTO_START_ASM };
	uint64_t pcs[UNWIND_MAX_PCS];
	struct mem m;
	struct csan_regs r = chain_plain(&m);
	int n;

	frame(&m, F_TOP, F_START, RA_INTO_START_ASM); /* now top_via_asm's frame */
	frame(&m, F_ASM, F_TOP, RA_INTO_TOP_VIA_ASM);
	frame(&m, F_MID, F_ASM, RA_INTO_ASM);
	n = unwind_stack(u, &r, mem_read, &m, 0, pcs, UNWIND_MAX_PCS, NULL);
	check_pcs(pcs, n, want, 5);
	n = unwind_stack(u, &r, mem_read, &m, UNWIND_FP_ONLY, pcs, UNWIND_MAX_PCS, NULL);
	check_pcs(pcs, n, want, 5);
}

/*
 * Stopped in csan_slow_path, which keeps no frame, with %rsp in the guard
 * page below the stack (a stack overflow): CFI needs the return address
 * at [rsp] and stops after one frame; the walk goes on along %rbp, which
 * still holds __tsan_write4's frame.  The return into __tsan_write4
 * itself (at [rsp]) is what is lost.
 */
static void test_fp_resumes_after_cfi(struct unwinder *u)
{
	static const uint64_t want[] = { PC_SLOW_PATH, RA_INTO_WRITER, RA_INTO_START_W };
	struct unwind_info info;
	uint64_t pcs[UNWIND_MAX_PCS];
	struct mem m;
	struct csan_regs r;
	int n;

	memset(&m, 0, sizeof(m));
	frame(&m, F_START, 0, 0);
	frame(&m, F_TOP, F_START, RA_INTO_START_W); /* writer's frame */
	frame(&m, F_MID, F_TOP, RA_INTO_WRITER);    /* __tsan_write4's frame */
	r = (struct csan_regs){ .rip = PC_SLOW_PATH, .rbp = F_MID, .rsp = STACK_BASE - 0x100 };
	n = unwind_stack(u, &r, mem_read, &m, 0, pcs, UNWIND_MAX_PCS, &info);
	check_pcs(pcs, n, want, 3);
	CHECK_EQ_U64(info.how, UNWIND_USED_CFI | UNWIND_USED_FP);
	CHECK_EQ_U64(info.cfi_frames, 1);
	CHECK_CONTAINS(info.cfi_error, "0x6ffff00");
}

/* Nothing readable: the IP alone, and no crash. */
static void test_bad_stack(struct unwinder *u)
{
	uint64_t pcs[UNWIND_MAX_PCS];
	struct mem m;
	struct csan_regs r = chain_plain(&m);
	int n;

	r.rbp = 0x1234560;
	r.rsp = 0x1234500;
	n = unwind_stack(u, &r, mem_read, &m, 0, pcs, UNWIND_MAX_PCS, NULL);
	CHECK_EQ_U64(n, 1);
	CHECK_EQ_U64(pcs[0], PC_LEAF_BODY);
	CHECK_EQ_U64(unwind_stack(u, &r, mem_read, &m, 0, pcs, 0, NULL), -EINVAL);
	CHECK_EQ_U64(unwind_stack(u, NULL, mem_read, &m, 0, pcs, 4, NULL), -EINVAL);
	CHECK_EQ_U64(unwind_stack(u, &r, mem_read, &m, 0, pcs, UNWIND_MAX_PCS + 1, NULL), -EINVAL);
}

/* The frame-pointer walk's guards against a corrupt or hostile chain. */
static void test_fp_guards(void)
{
	uint64_t pcs[8];
	struct mem m;

	memset(&m, 0, sizeof(m));
	frame(&m, F_LEAF, F_LEAF, 0x401111); /* a loop: rbp points at itself */
	CHECK_EQ_U64(unwind_fp(F_LEAF, F_LEAF - 0x10, mem_read, &m, pcs, 8), 1);
	frame(&m, F_LEAF, F_LEAF - 0x100, 0x401111); /* the caller's frame is lower */
	CHECK_EQ_U64(unwind_fp(F_LEAF, F_LEAF - 0x10, mem_read, &m, pcs, 8), 1);
	frame(&m, F_LEAF, F_MID + 4, 0x401111); /* misaligned */
	CHECK_EQ_U64(unwind_fp(F_LEAF, F_LEAF - 0x10, mem_read, &m, pcs, 8), 1);
	CHECK_EQ_U64(unwind_fp(F_LEAF + 4, 0, mem_read, &m, pcs, 8), 0);
	CHECK_EQ_U64(unwind_fp(F_LEAF, F_LEAF + 8, mem_read, &m, pcs, 8), 0); /* below %rsp */
	frame(&m, F_LEAF, STACK_BASE + 0x100000 + 0xc00, 0x401111);	      /* a 1 MiB frame */
	CHECK_EQ_U64(unwind_fp(F_LEAF, F_LEAF - 0x10, mem_read, &m, pcs, 8), 1);
	frame(&m, F_LEAF, F_MID, 0); /* a zero return address ends the walk */
	CHECK_EQ_U64(unwind_fp(F_LEAF, F_LEAF - 0x10, mem_read, &m, pcs, 8), 0);
	/* @max bounds it. */
	chain_plain(&m);
	CHECK_EQ_U64(unwind_fp(F_LEAF, F_LEAF - 0x10, mem_read, &m, pcs, 2), 2);
	CHECK_EQ_U64(pcs[1], RA_INTO_TOP);
}

/* The unwound PCs symbolize to the right functions and call lines. */
static void test_symbolized(struct sym *sym, struct unwinder *u)
{
	static const char *const want[] = { "hdr_store", "mid_twice", "leaf",  "call_leaf",
					    "mid",	 "top",	      "_start" };
	struct sym_frame fr[SYM_MAX_FRAMES];
	uint64_t pcs[UNWIND_MAX_PCS];
	struct mem m;
	struct csan_regs r = chain_plain(&m);
	int n = unwind_stack(u, &r, mem_read, &m, 0, pcs, UNWIND_MAX_PCS, NULL), i, j, k = 0;

	for (i = 0; i < n; i++) {
		int nf = sym_lookup(sym, pcs[i], i ? SYM_RETADDR : 0, fr, SYM_MAX_FRAMES);

		for (j = 0; j < nf; j++, k++)
			CHECK(k < 7 && fr[j].func && strcmp(fr[j].func, want[k]) == 0);
	}
	CHECK_EQ_U64(k, 7);
}

static void test_fill_side(struct unwinder *u)
{
	struct csan_report_side side = { .flags = CSAN_SIDE_IP_AFTER };
	struct mem m;
	struct csan_regs r = chain_plain(&m);

	CHECK_EQ_U64(unwind_fill_side(u, &r, mem_read, &m, 0, &side), 0);
	CHECK_EQ_U64(side.ip, PC_LEAF_BODY);
	CHECK_EQ_U64(side.nret, 3);
	CHECK_EQ_U64(side.ret[0], RA_INTO_MID);
	CHECK_EQ_U64(side.ret[2], RA_INTO_START_TOP);
	CHECK_EQ_U64(side.mechanism, CSAN_MECH_HOST_UNWIND);
	CHECK_EQ_U64(side.flags, 0);
}

/* vCPU threads unwind at once: each must get its own stack back. */
static void *unwind_many(void *arg)
{
	static const uint64_t want[] = { PC_LEAF_BODY, RA_INTO_MID, RA_INTO_TOP,
					 RA_INTO_START_TOP };
	struct unwinder *u = arg;
	uint64_t pcs[UNWIND_MAX_PCS];
	struct mem m;
	struct csan_regs r = chain_plain(&m);
	int i, n;

	for (i = 0; i < 200; i++) {
		n = unwind_stack(u, &r, mem_read, &m, 0, pcs, UNWIND_MAX_PCS, NULL);
		if (n != 4 || memcmp(pcs, want, sizeof(want)) != 0)
			return (void *)1;
	}
	return NULL;
}

static void test_threads(struct unwinder *u)
{
	pthread_t th[4];
	void *ret;
	int i;

	for (i = 0; i < 4; i++)
		CHECK(pthread_create(&th[i], NULL, unwind_many, u) == 0);
	for (i = 0; i < 4; i++) {
		pthread_join(th[i], &ret);
		CHECK(ret == NULL);
	}
}

int main(void)
{
	char why[512];
	struct unwinder *u, *u2;
	struct sym *sym;
	int err = sym_open(symtest_path(), &sym, why, sizeof(why));

	if (!err && (err = unwind_new(sym, &u, why, sizeof(why))) != 0)
		sym_close(sym);
	CHECK_EQ_U64(err, 0);
	if (err) {
		fprintf(stderr, "test-unwind: %s\n", why);
		return check_exit_status("test-unwind");
	}
	test_cfi_and_fp_agree(u);
	test_through_asm(u);
	test_fp_resumes_after_cfi(u);
	test_bad_stack(u);
	test_fp_guards();
	test_symbolized(sym, u);
	test_fill_side(u);
	test_threads(u);
	/* One attachment per Dwfl: a second unwinder is refused, and says why. */
	CHECK_EQ_U64(unwind_new(sym, &u2, why, sizeof(why)), -EINVAL);
	CHECK_CONTAINS(why, "dwfl_attach_state");
	unwind_free(u);
	sym_close(sym);
	return check_exit_status("test-unwind");
}
