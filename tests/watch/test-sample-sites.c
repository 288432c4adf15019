/* test-sample-sites.c: which instructions are sampling sites, their addresses, the draw. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/unit/check.h"
#include "watch/sample_sites.h"
#include "watch/sym.h"

#define SKIP 77
#define BASE 0xffffffff81000000ull
/* The test tables' image: displacements in here move with the text. */
#define IMAGE_LO 0xffffffff81000000ull
#define IMAGE_HI 0xffffffff83000000ull
/* A KASLR offset, as the hit's RIP would show it. */
#define SLIDE 0x2a00000ull

/* Registers with values that tell them apart: rax 0x100000, rcx 0x200000, ... r15 0x1000000. */
static uint64_t regs[16];

/*
 * One instruction (bytes from GNU as, AT&T syntax in the name) and what
 * it must be: a reason it is left out, or a site with these fields and
 * this address at BASE and at BASE + SLIDE.
 */
struct one {
	const char *name;
	uint8_t len;
	uint8_t bytes[15];
	enum sample_skip want;
	unsigned size;
	const char *rw; /* "r", "w", "rw" */
	unsigned flags; /* F_* */
	uint64_t addr, addr_slid;
};
#define F_FRAME	 1u
#define F_GLOBAL 2u
#define F_IMAGE	 4u

#define KEPT(n, sz, access, fl, a, as, ...)                                                        \
	{                                                                                          \
		n, sizeof((uint8_t[]){ __VA_ARGS__ }), { __VA_ARGS__ }, SAMPLE_KEPT, sz, access,   \
			fl, a, as                                                                  \
	}
#define LEFT(n, why, ...)                                                                          \
	{                                                                                          \
		n, sizeof((uint8_t[]){ __VA_ARGS__ }), { __VA_ARGS__ }, why, 0, "", 0, 0, 0        \
	}

static const struct one cases[] = {
	KEPT("mov (%rdi),%eax", 4, "r", 0, 0x800000, 0x800000, 0x8b, 0x07),
	KEPT("mov %eax,0x10(%rdi)", 4, "w", 0, 0x800010, 0x800010, 0x89, 0x47, 0x10),
	KEPT("addl $1,0x8(%rbx)", 4, "rw", 0, 0x400008, 0x400008, 0x83, 0x43, 0x08, 0x01),
	KEPT("cmp %rax,(%rsi)", 8, "r", 0, 0x700000, 0x700000, 0x48, 0x39, 0x06),
	KEPT("test %al,(%rdx)", 1, "r", 0, 0x300000, 0x300000, 0x84, 0x02),
	KEPT("incl 0x4(%rdi,%rcx,4)", 4, "rw", 0, 0x1000004, 0x1000004, 0xff, 0x44, 0x8f, 0x04),
	KEPT("or %eax,(%r8)", 4, "rw", 0, 0x900000, 0x900000, 0x41, 0x09, 0x00),
	KEPT("andq $-16,0x20(%r9)", 8, "rw", 0, 0xa00020, 0xa00020, 0x49, 0x83, 0x61, 0x20, 0xf0),
	KEPT("movzbl 0x1(%rsi),%eax", 1, "r", 0, 0x700001, 0x700001, 0x0f, 0xb6, 0x46, 0x01),
	KEPT("mov 0x1000(%rip),%eax", 4, "r", F_GLOBAL, BASE + 6 + 0x1000,
	     BASE + SLIDE + 6 + 0x1000, 0x8b, 0x05, 0x00, 0x10, 0x00, 0x00),
	KEPT("mov %rax,-0x8(%rbp)", 8, "w", F_FRAME, 0x5ffff8, 0x5ffff8, 0x48, 0x89, 0x45, 0xf8),
	KEPT("mov 0xffffffff82000000(,%rax,8),%rdx", 8, "r", F_IMAGE, 0xffffffff82800000ull,
	     0xffffffff82800000ull + SLIDE, 0x48, 0x8b, 0x14, 0xc5, 0x00, 0x00, 0x00, 0x82),
	KEPT("mov 0xffffffff82000010,%ecx", 4, "r", F_GLOBAL | F_IMAGE, 0xffffffff82000010ull,
	     0xffffffff82000010ull + SLIDE, 0x8b, 0x0c, 0x25, 0x10, 0x00, 0x00, 0x82),
	KEPT("btsq $3,(%rdi)", 8, "rw", 0, 0x800000, 0x800000, 0x48, 0x0f, 0xba, 0x2f, 0x03),
	KEPT("movw $5,(%rdi)", 2, "w", 0, 0x800000, 0x800000, 0x66, 0xc7, 0x07, 0x05, 0x00),
	KEPT("mov 0x0(%r13),%eax", 4, "r", 0, 0xe00000, 0xe00000, 0x41, 0x8b, 0x45, 0x00),
	KEPT("mov (%r12),%eax", 4, "r", 0, 0xd00000, 0xd00000, 0x41, 0x8b, 0x04, 0x24),
	KEPT("mov -0x80(%r11,%r14,2),%bl", 1, "r", 0, 0x29fff80, 0x29fff80, 0x43, 0x8a, 0x5c, 0x73,
	     0x80),
	KEPT("cmove 0x18(%rdi),%rax", 8, "r", 0, 0x800018, 0x800018, 0x48, 0x0f, 0x44, 0x47, 0x18),
	/* Bit strings: the 8/4/2-byte word holding bit %reg of the operand. */
	KEPT("bts %rsi,(%rdi)", 8, "rw", 0, 0x800000 + (0x700000 >> 6) * 8,
	     0x800000 + (0x700000 >> 6) * 8, 0x48, 0x0f, 0xab, 0x37),
	KEPT("bts %ecx,0x10(%rdi)", 4, "rw", 0, 0x800010 + (0x200000 >> 5) * 4,
	     0x800010 + (0x200000 >> 5) * 4, 0x0f, 0xab, 0x4f, 0x10),
	KEPT("btr %ax,(%rbx)", 2, "rw", 0, 0x400000, 0x400000, 0x66, 0x0f, 0xb3, 0x03),

	LEFT("mov (%rsp),%rax", SAMPLE_SKIP_STACK, 0x48, 0x8b, 0x04, 0x24),
	LEFT("mov %rax,0x8(%rsp)", SAMPLE_SKIP_STACK, 0x48, 0x89, 0x44, 0x24, 0x08),
	LEFT("push %rbx", SAMPLE_SKIP_CALL_STACK, 0x53),
	LEFT("call .+5", SAMPLE_SKIP_CALL_STACK, 0xe8, 0x00, 0x00, 0x00, 0x00),
	LEFT("ret", SAMPLE_SKIP_CALL_STACK, 0xc3),
	LEFT("lock incl (%rdi)", SAMPLE_SKIP_ATOMIC, 0xf0, 0xff, 0x07),
	LEFT("xchg %eax,(%rdi)", SAMPLE_SKIP_ATOMIC, 0x87, 0x07),
	LEFT("cmpxchg %ecx,(%rdi)", SAMPLE_SKIP_ATOMIC, 0x0f, 0xb1, 0x0f),
	LEFT("xadd %eax,(%rsi)", SAMPLE_SKIP_ATOMIC, 0x0f, 0xc1, 0x06),
	LEFT("bt %rsi,(%rdi) (test_bit)", SAMPLE_SKIP_ATOMIC, 0x48, 0x0f, 0xa3, 0x37),
	LEFT("btl $3,(%rdi) (test_bit)", SAMPLE_SKIP_ATOMIC, 0x0f, 0xba, 0x27, 0x03),
	LEFT("mov %gs:0x28,%rax", SAMPLE_SKIP_PERCPU, 0x65, 0x48, 0x8b, 0x04, 0x25, 0x28, 0x00,
	     0x00, 0x00),
	LEFT("mov %gs:0x10(%rax),%rax", SAMPLE_SKIP_PERCPU, 0x65, 0x48, 0x8b, 0x40, 0x10),
	LEFT("mov %fs:(%rdi),%eax", SAMPLE_SKIP_PERCPU, 0x64, 0x8b, 0x07),
	LEFT("rep movsb", SAMPLE_SKIP_STRING, 0xf3, 0xa4),
	LEFT("stosq", SAMPLE_SKIP_STRING, 0x48, 0xab),
	LEFT("lea 0x8(%rdi),%rax", SAMPLE_SKIP_NO_ACCESS, 0x48, 0x8d, 0x47, 0x08),
	LEFT("nopl (%rax)", SAMPLE_SKIP_NO_ACCESS, 0x0f, 0x1f, 0x00),
	LEFT("prefetcht0 (%rdi)", SAMPLE_SKIP_NO_ACCESS, 0x0f, 0x18, 0x0f),
	LEFT("call *0x10(%rax)", SAMPLE_SKIP_BRANCH, 0xff, 0x50, 0x10),
	LEFT("jmp *(%rax)", SAMPLE_SKIP_BRANCH, 0xff, 0x20),
	LEFT("mov %rdi,%rax", SAMPLE_SKIP_NO_MEMORY, 0x48, 0x89, 0xf8),
	LEFT("push 0x8(%rdi)", SAMPLE_SKIP_TWO_ACCESSES, 0xff, 0x77, 0x08),
	LEFT("movdqu (%rdi),%xmm0", SAMPLE_SKIP_SPECIAL, 0xf3, 0x0f, 0x6f, 0x07),
	LEFT("clflush (%rdi)", SAMPLE_SKIP_SPECIAL, 0x0f, 0xae, 0x3f),
	LEFT("lgdt (%rax)", SAMPLE_SKIP_SPECIAL, 0x0f, 0x01, 0x10),
	LEFT("movabs 0x1122334455667788,%eax", SAMPLE_SKIP_SPECIAL, 0xa1, 0x88, 0x77, 0x66, 0x55,
	     0x44, 0x33, 0x22, 0x11),
	LEFT("verw 0x100(%rip)", SAMPLE_SKIP_SPECIAL, 0x0f, 0x00, 0x2d, 0x00, 0x01, 0x00, 0x00),
	LEFT("(bad) 0x06", SAMPLE_SKIP_UNDECODABLE, 0x06),
};

/* A table of @len bytes of @code at BASE, in the test image. */
static struct sample_table *table_of(const uint8_t *code, size_t len)
{
	struct sample_table *t = sample_table_new();
	char why[200] = "";

	CHECK(t != NULL);
	if (!t)
		exit(1);
	sample_table_set_image(t, IMAGE_LO, IMAGE_HI);
	CHECK(sample_table_add_code(t, code, len, BASE, why, sizeof(why)) == 0);
	return t;
}

static unsigned total(const struct sample_stats *st)
{
	unsigned r, n = 0;

	for (r = 0; r < SAMPLE_SKIP_COUNT; r++)
		n += (unsigned)st->count[r];
	return n;
}

static void check_one(const struct one *c)
{
	struct sample_table *t = table_of(c->bytes, c->len);
	const struct sample_stats *st = sample_table_stats(t);
	const struct sample_site *s = sample_table_site(t, 0);
	int before = check_failures;

	CHECK_EQ_U64(st->insns, 1);
	CHECK_EQ_U64(total(st), 1);
	CHECK_STREQ(sample_skip_name(st->count[c->want] == 1 ? c->want : SAMPLE_SKIP_COUNT),
		    sample_skip_name(c->want));
	if (c->want != SAMPLE_KEPT) {
		CHECK_EQ_U64(sample_table_count(t), 0);
	} else if (s && sample_table_count(t) == 1) {
		uint64_t global = c->flags & F_GLOBAL ? c->addr : 0;

		CHECK_EQ_U64(s->addr, BASE);
		CHECK_EQ_U64(s->len, c->len);
		CHECK_EQ_U64(sample_site_size(s), c->size);
		CHECK_EQ_U64(s->read, strchr(c->rw, 'r') != NULL);
		CHECK_EQ_U64(s->write, strchr(c->rw, 'w') != NULL);
		CHECK_EQ_U64(s->frame, !!(c->flags & F_FRAME));
		CHECK_EQ_U64(s->global, !!(c->flags & F_GLOBAL));
		CHECK_EQ_U64(s->image_disp, !!(c->flags & F_IMAGE));
		CHECK_EQ_U64(s->seg, SAMPLE_SEG_NONE);
		CHECK_EQ_U64(sample_site_address(s, regs, BASE), c->addr);
		CHECK_EQ_U64(sample_site_address(s, regs, BASE + SLIDE), c->addr_slid);
		CHECK_EQ_U64(sample_site_global(s), global);
	} else {
		CHECK(!"one site");
	}
	check_case_done(c->name, before);
	sample_table_free(t);
}

/*
 * A bit offset is signed and as wide as the operand: bts %ecx,0x10(%rdi)
 * with %ecx = -1 (whatever %rcx's upper half) sets bit 31 of the word
 * before the operand; with %ecx = 32, bit 0 of the word after it.
 */
static void test_bit_offset_sign(void)
{
	static const uint8_t bts[] = { 0x0f, 0xab, 0x4f, 0x10 };
	struct sample_table *t = table_of(bts, sizeof(bts));
	const struct sample_site *s = sample_table_site(t, 0);
	uint64_t r[16];

	memcpy(r, regs, sizeof(r));
	CHECK(s != NULL);
	if (s) {
		r[1] = 0xdeadbeefffffffffull;
		CHECK_EQ_U64(sample_site_address(s, r, BASE), 0x800010 - 4);
		r[1] = 0xdeadbeef00000020ull;
		CHECK_EQ_U64(sample_site_address(s, r, BASE), 0x800010 + 4);
		r[1] = 31;
		CHECK_EQ_U64(sample_site_address(s, r, BASE), 0x800010);
	}
	sample_table_free(t);
}

/* Excluded ranges, INT3 padding, and the sweep starting again at a function. */
static void test_ranges(void)
{
	static const uint8_t mov[] = { 0x8b, 0x07 }; /* mov (%rdi),%eax */
	static const uint8_t padded[] = { 0xcc, 0xcc, 0xcc, 0x8b, 0x07, 0xcc };
	/* b8 8b 07 00 00 is mov $0x78b,%eax; from BASE+1, 8b 07 / 00 00 are mov, add. */
	static const uint8_t skewed[] = { 0xb8, 0x8b, 0x07, 0x00, 0x00 };
	struct sample_table *t;
	char why[200];

	t = sample_table_new();
	CHECK(sample_table_exclude(t, BASE, BASE + 1, SAMPLE_SKIP_MAY_FAULT) == 0);
	CHECK(sample_table_add_code(t, mov, sizeof(mov), BASE, why, sizeof(why)) == 0);
	CHECK_EQ_U64(sample_table_stats(t)->count[SAMPLE_SKIP_MAY_FAULT], 1);
	CHECK_EQ_U64(sample_table_count(t), 0);
	sample_table_free(t);

	/* A range that ends where the instruction starts does not cover it. */
	t = sample_table_new();
	CHECK(sample_table_exclude(t, BASE - 0x10, BASE, SAMPLE_SKIP_UNSAFE_TEXT) == 0);
	CHECK(sample_table_exclude(t, BASE + 2, BASE + 0x10, SAMPLE_SKIP_UNSAFE_TEXT) == 0);
	CHECK(sample_table_add_code(t, mov, sizeof(mov), BASE, why, sizeof(why)) == 0);
	CHECK_EQ_U64(sample_table_count(t), 1);
	sample_table_free(t);

	/* Nested ranges: the lower reason wins, on the inner range's bytes too. */
	t = sample_table_new();
	CHECK(sample_table_exclude(t, BASE + 1, BASE + 2, SAMPLE_SKIP_HANDLER_FUNCTION) == 0);
	CHECK(sample_table_exclude(t, BASE - 0x100, BASE + 0x100, SAMPLE_SKIP_UNSAFE_TEXT) == 0);
	CHECK(sample_table_add_code(t, mov, sizeof(mov), BASE, why, sizeof(why)) == 0);
	CHECK_EQ_U64(sample_table_stats(t)->count[SAMPLE_SKIP_UNSAFE_TEXT], 1);
	CHECK_EQ_U64(sample_table_stats(t)->count[SAMPLE_SKIP_HANDLER_FUNCTION], 0);
	sample_table_free(t);

	/* An instruction that only its tail overlaps is still left out. */
	t = sample_table_new();
	CHECK(sample_table_exclude(t, BASE + 1, BASE + 2, SAMPLE_SKIP_PATCHED) == 0);
	CHECK(sample_table_add_code(t, mov, sizeof(mov), BASE, why, sizeof(why)) == 0);
	CHECK_EQ_U64(sample_table_stats(t)->count[SAMPLE_SKIP_PATCHED], 1);
	sample_table_free(t);

	t = table_of(padded, sizeof(padded));
	CHECK_EQ_U64(sample_table_stats(t)->padding_bytes, 4);
	CHECK_EQ_U64(sample_table_stats(t)->insns, 1);
	CHECK(sample_table_find(t, BASE + 3) != NULL);
	sample_table_free(t);

	t = sample_table_new();
	CHECK(sample_table_add_function(t, BASE + 1) == 0);
	CHECK(sample_table_add_code(t, skewed, sizeof(skewed), BASE, why, sizeof(why)) == 0);
	CHECK_EQ_U64(sample_table_stats(t)->count[SAMPLE_SKIP_UNDECODABLE], 1);
	CHECK_EQ_U64(sample_table_count(t), 2);
	CHECK(sample_table_find(t, BASE + 1) != NULL); /* mov (%rdi),%eax */
	CHECK(sample_table_find(t, BASE + 3) != NULL); /* add %al,(%rax) */
	CHECK_EQ_U64(sample_table_stats(t)->insns, 3);
	sample_table_free(t);
}

#define NDRAW 50

/* A table of NDRAW sites, mov (%rdi),%eax at BASE + 2i, seeded with @seed. */
static struct sample_table *draw_table(uint64_t seed, size_t n)
{
	uint8_t code[2 * NDRAW];
	struct sample_table *t;
	size_t i;

	for (i = 0; i < n; i++) {
		code[2 * i] = 0x8b;
		code[2 * i + 1] = 0x07;
	}
	t = table_of(code, 2 * n);
	CHECK_EQ_U64(sample_table_count(t), n);
	CHECK(sample_table_seed(t, seed) == 0);
	return t;
}

/* Draw @n sites into @idx (their index i, from BASE + 2i); false on NULL. */
static bool draw_n(struct sample_table *t, size_t n, unsigned *idx)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct sample_site *s = sample_table_draw(t);

		if (!s)
			return false;
		idx[i] = (unsigned)((s->addr - BASE) / 2);
	}
	return true;
}

/* Each of the @n indices in @idx is below @of and appears once; @skip ones never. */
static void check_once_each(const unsigned *idx, size_t n, size_t of, const bool *skip)
{
	unsigned seen[NDRAW] = { 0 };
	size_t i, want = 0;

	for (i = 0; i < n; i++)
		if (idx[i] < of)
			seen[idx[i]]++;
	for (i = 0; i < of; i++) {
		bool live = !skip || !skip[i];

		want += live;
		CHECK_EQ_U64(seen[i], live ? 1 : 0);
	}
	CHECK_EQ_U64(n, want);
}

static void test_draw(void)
{
	unsigned a[NDRAW], b[NDRAW], c[NDRAW], first[10] = { 0 };
	bool retired[NDRAW] = { false };
	struct sample_table *t = draw_table(42, NDRAW);
	size_t i, kept;
	uint64_t seed;

	/* Two rounds: each site once per round, in two different orders. */
	CHECK(draw_n(t, NDRAW, a));
	CHECK_EQ_U64(sample_table_round(t), 1);
	check_once_each(a, NDRAW, NDRAW, NULL);
	CHECK(draw_n(t, NDRAW, b));
	CHECK_EQ_U64(sample_table_round(t), 2);
	check_once_each(b, NDRAW, NDRAW, NULL);
	CHECK(memcmp(a, b, sizeof(a)) != 0);

	/* The same seed, the same draws; another seed, others. */
	CHECK(sample_table_seed(t, 42) == 0);
	CHECK(draw_n(t, NDRAW, c));
	CHECK(memcmp(a, c, sizeof(a)) == 0);
	CHECK(sample_table_seed(t, 43) == 0);
	CHECK(draw_n(t, NDRAW, c));
	CHECK(memcmp(a, c, sizeof(a)) != 0);

	/* Retire every fifth site: never drawn again, the rest once a round. */
	for (i = 0; i < NDRAW; i += 5) {
		CHECK(sample_table_retire(t, BASE + 2 * i) == 0);
		retired[i] = true;
	}
	CHECK(sample_table_retire(t, BASE) == -EALREADY);
	CHECK(sample_table_retire(t, BASE + 1) == -ENOENT);
	CHECK_EQ_U64(sample_table_live(t), NDRAW - NDRAW / 5);
	CHECK(draw_n(t, NDRAW - NDRAW / 5, c));
	check_once_each(c, NDRAW - NDRAW / 5, NDRAW, retired);
	CHECK_EQ_U64(sample_table_round(t), 2); /* the first draws ended round 1 of seed 43 */
	sample_table_free(t);

	/*
	 * Retiring in the middle of a round: of the sites not drawn yet, all
	 * but three are retired; the round ends after those three, and the
	 * next holds exactly the 20 drawn before and those three.
	 */
	t = draw_table(7, NDRAW);
	memset(retired, 0, sizeof(retired));
	CHECK(draw_n(t, 20, a));
	for (i = 0; i < NDRAW; i++)
		retired[i] = true;
	for (i = 0; i < 20; i++)
		retired[a[i]] = false;
	for (i = 0, kept = 0; i < NDRAW; i++) {
		if (!retired[i])
			continue;
		if (kept < 3) {
			retired[i] = false;
			kept++;
			continue;
		}
		CHECK(sample_table_retire(t, BASE + 2 * i) == 0);
	}
	CHECK(draw_n(t, 3, b));
	CHECK_EQ_U64(sample_table_round(t), 1);
	for (i = 0; i < 3; i++)
		CHECK(!retired[b[i]]);
	CHECK(draw_n(t, 23, c));
	CHECK_EQ_U64(sample_table_round(t), 2);
	check_once_each(c, 23, NDRAW, retired);
	for (i = 0; i < NDRAW; i++)
		if (!retired[i])
			sample_table_retire(t, BASE + 2 * i);
	CHECK(sample_table_draw(t) == NULL);
	CHECK_EQ_U64(sample_table_live(t), 0);
	sample_table_free(t);

	/*
	 * Uniform: over 20000 seeds, each of 10 sites comes first about 2000
	 * times.  The seeds are fixed, so the counts are too; the bounds
	 * (about 7 standard deviations) say the draw is not skewed, e.g.
	 * toward the table's first or last site.
	 */
	t = draw_table(0, 10);
	for (seed = 1; seed <= 20000; seed++) {
		CHECK(sample_table_seed(t, seed) == 0);
		if (draw_n(t, 1, a))
			first[a[0]]++;
	}
	for (i = 0; i < 10; i++) {
		printf("test-sample-sites: site %zu drawn first by %u of 20000 seeds\n", i,
		       first[i]);
		CHECK(first[i] > 1700 && first[i] < 2300);
	}
	sample_table_free(t);
}

/* ------------------------------------------------------------------------- */
/* On a Linux test kernel, when one is cached. */

/* A symbol's value and size, or a section's address and size, from @path. */
struct elf_lookup {
	const char *name;
	bool section;
	uint64_t value, size;
	bool found;
};

static void elf_lookup(const char *path, struct elf_lookup *q, size_t nq)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx, i, j;

	elf_version(EV_CURRENT);
	if (fd < 0 || !(elf = elf_begin(fd, ELF_C_READ_MMAP, NULL))) {
		if (fd >= 0)
			close(fd);
		return;
	}
	elf_getshdrstrndx(elf, &shstrndx);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *sname;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh))
			continue;
		sname = elf_strptr(elf, shstrndx, sh.sh_name);
		for (j = 0; sname && j < nq; j++)
			if (q[j].section && !strcmp(q[j].name, sname))
				q[j] = (struct elf_lookup){ q[j].name, true, sh.sh_addr, sh.sh_size,
							    true };
		if (sh.sh_type != SHT_SYMTAB || !(d = elf_getdata(scn, NULL)))
			continue;
		for (i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;

			if (!gelf_getsym(d, (int)i, &sym) ||
			    !(n = elf_strptr(elf, sh.sh_link, sym.st_name)))
				continue;
			for (j = 0; j < nq; j++)
				if (!q[j].section && !q[j].found && !strcmp(q[j].name, n))
					q[j] = (struct elf_lookup){ q[j].name, false, sym.st_value,
								    sym.st_size, true };
		}
	}
	elf_end(elf);
	close(fd);
}

/* The sites in [@lo, @hi). */
static size_t sites_in(const struct sample_table *t, uint64_t lo, uint64_t hi)
{
	size_t i, n = 0;

	for (i = 0; i < sample_table_count(t); i++) {
		uint64_t a = sample_table_site(t, i)->addr;

		n += a >= lo && a < hi;
	}
	return n;
}

enum {
	L_INIT,
	L_ALTREPL,
	L_EXIT,
	L_NOINSTR_S,
	L_NOINSTR_E,
	L_ENTRY_S,
	L_ENTRY_E,
	L_GET_AVENRUN,
	L_AVENRUN,
	L_TSAN_READ8,
	L_PLAIN_WRITE,
	L_PLAIN_WORD,
	L_INSTR_READ,
	L_UNINSTR_WORD,
	L_N
};

/* get_avenrun() (kernel/sched/loadavg.c): loads[i] = (avenrun[i] + offset) << shift, i < 3. */
static void check_get_avenrun(const struct sample_table *t, const struct elf_lookup *l)
{
	size_t i, reads = 0, writes = 0, n = 0;

	if (!l[L_GET_AVENRUN].found || !l[L_AVENRUN].found) {
		CHECK(!"get_avenrun and avenrun in the symbol table");
		return;
	}
	for (i = 0; i < sample_table_count(t); i++) {
		const struct sample_site *s = sample_table_site(t, i);
		uint64_t g = sample_site_global(s), av = l[L_AVENRUN].value;

		if (s->addr < l[L_GET_AVENRUN].value ||
		    s->addr >= l[L_GET_AVENRUN].value + l[L_GET_AVENRUN].size)
			continue;
		n++;
		if (s->read && !s->write && sample_site_size(s) == 8 && g >= av && g < av + 24 &&
		    (g - av) % 8 == 0)
			reads++;
		if (s->write && !s->read && sample_site_size(s) == 8 && !s->global &&
		    s->base == 7 /* rdi: loads */ && s->disp >= 0 && s->disp < 24)
			writes++;
	}
	CHECK_EQ_U64(reads, 3);
	CHECK_EQ_U64(writes, 3);
	CHECK_EQ_U64(n, 6);
}

/* The race test built into the KCSAN test kernel (tools/linux/race-test): its plain accesses. */
static void check_race_test(const struct sample_table *t, const struct elf_lookup *l)
{
	struct {
		int fn, var;
		bool write;
	} want[] = { { L_PLAIN_WRITE, L_PLAIN_WORD, true },
		     { L_INSTR_READ, L_UNINSTR_WORD, false } };
	size_t w, i;

	for (w = 0; w < 2; w++) {
		size_t hits = 0;

		if (!l[want[w].fn].found || !l[want[w].var].found) {
			printf("test-sample-sites: no %s here (the race test is a module in this "
			       "kernel)\n",
			       l[want[w].fn].name);
			continue;
		}
		for (i = 0; i < sample_table_count(t); i++) {
			const struct sample_site *s = sample_table_site(t, i);

			hits += s->addr >= l[want[w].fn].value &&
				s->addr < l[want[w].fn].value + l[want[w].fn].size &&
				sample_site_global(s) == l[want[w].var].value &&
				s->write == want[w].write && s->read == !want[w].write &&
				sample_site_size(s) == 8;
		}
		CHECK_EQ_U64(hits, 1);
	}
}

/*
 * race_test_locked_read's sites: the plain read of race_test_locked_word
 * is not marked; the spinlock's unlock, a plain one-byte store inlined
 * from queued_spin_unlock, is.
 */
static void check_marked(const struct sample_table *t, struct sym *sym)
{
	uint64_t fn = 0, size = 0, word = 0;
	size_t i, plain = 0, marked = 0;

	CHECK(sym_addr_of(sym, "race_test_locked_read", 0, &fn, &size) == 0 && size);
	CHECK(sym_addr_of(sym, "race_test_locked_word", 0, &word, NULL) == 0);
	for (i = 0; i < sample_table_count(t); i++) {
		const struct sample_site *s = sample_table_site(t, i);

		if (s->addr - fn >= size)
			continue;
		if (s->global && sample_site_global(s) == word) {
			CHECK(!sample_access_marked(sym, s->addr, false));
			plain++;
		} else if (s->write && sample_site_size(s) == 1) {
			CHECK(sample_access_marked(sym, s->addr, false));
			marked++;
		}
	}
	CHECK_EQ_U64(plain, 1);
	CHECK_EQ_U64(marked, 1);
}

/*
 * --sample-only on a real kernel: the race test's two racy-plain
 * functions keep their site each (their one access of
 * race_test_plain_word), nothing else stays, and the draws alternate
 * between the two.  Leaves @t with those two live.
 */
static void check_keep_functions(const char *path, struct sample_table *t,
				 const struct elf_lookup *l)
{
	struct sym *sym = NULL;
	char why[512] = "";
	size_t before = sample_table_live(t), retired, i;
	const struct sample_site *a, *b;

	CHECK(sym_open(path, &sym, why, sizeof(why)) == 0);
	if (!sym)
		return;
	check_marked(t, sym);
	retired = sample_table_keep_functions(t, sym, "race_test_plain_read,race_test_plain_write");
	CHECK_EQ_U64(sample_table_live(t), 2);
	CHECK_EQ_U64(retired, before - 2);
	CHECK(sample_table_seed(t, 9) == 0);
	for (i = 0; i < 4; i++) {
		a = sample_table_draw(t);
		b = sample_table_draw(t);
		CHECK(a && b && a != b);
		if (!a || !b)
			break;
		/* One of them is race_test_plain_write's store to the word. */
		CHECK((a->addr - l[L_PLAIN_WRITE].value < l[L_PLAIN_WRITE].size && a->write) ||
		      (b->addr - l[L_PLAIN_WRITE].value < l[L_PLAIN_WRITE].size && b->write));
	}
	/* A second cut by a pattern that matches nothing leaves none. */
	CHECK_EQ_U64(sample_table_keep_functions(t, sym, "no_such_function_*"), 2);
	CHECK_EQ_U64(sample_table_live(t), 0);
	sym_close(sym);
}

static void check_vmlinux(const char *path)
{
	struct elf_lookup l[L_N] = {
		[L_INIT] = { ".init.text", true },
		[L_ALTREPL] = { ".altinstr_replacement", true },
		[L_EXIT] = { ".exit.text", true },
		[L_NOINSTR_S] = { "__noinstr_text_start" },
		[L_NOINSTR_E] = { "__noinstr_text_end" },
		[L_ENTRY_S] = { "__entry_text_start" },
		[L_ENTRY_E] = { "__entry_text_end" },
		[L_GET_AVENRUN] = { "get_avenrun" },
		[L_AVENRUN] = { "avenrun" },
		[L_TSAN_READ8] = { "__tsan_read8" },
		[L_PLAIN_WRITE] = { "race_test_plain_write" },
		[L_PLAIN_WORD] = { "race_test_plain_word" },
		[L_INSTR_READ] = { "race_test_instr_read" },
		[L_UNINSTR_WORD] = { "race_test_uninstr_word" },
	};
	struct sample_table *t = NULL;
	const struct sample_stats *st;
	struct timespec t0, t1;
	char why[512] = "";
	size_t i, built_bytes;
	unsigned r;
	int before = check_failures;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK(sample_table_from_vmlinux(path, &t, why, sizeof(why)) == 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (!t) {
		fprintf(stderr, "%s: %s\n", path, why);
		return;
	}
	built_bytes = sample_table_bytes(t);
	CHECK(sample_table_seed(t, 1) == 0);
	st = sample_table_stats(t);
	printf("test-sample-sites: %s: %zu sites of %llu instructions in %llu bytes of text "
	       "(%llu of INT3 padding; %u freed sections, %llu bytes, not decoded): built in "
	       "%.2f s, %zu bytes while building, %zu bytes once drawing\n",
	       path, sample_table_count(t), (unsigned long long)st->insns,
	       (unsigned long long)st->text_bytes, (unsigned long long)st->padding_bytes,
	       st->freed_sections, (unsigned long long)st->freed_bytes,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
	       built_bytes, sample_table_bytes(t));
	for (r = 0; r < SAMPLE_SKIP_COUNT; r++)
		printf("test-sample-sites:   %-16s %8llu\n", sample_skip_name((enum sample_skip)r),
		       (unsigned long long)st->count[r]);

	CHECK_EQ_U64(total(st), st->insns);
	CHECK_EQ_U64(st->count[SAMPLE_KEPT], sample_table_count(t));
	CHECK(sample_table_count(t) > 10000);
	for (i = 1; i < sample_table_count(t); i++)
		if (sample_table_site(t, i)->addr <= sample_table_site(t, i - 1)->addr) {
			CHECK(!"sites sorted and distinct");
			break;
		}
	elf_lookup(path, l, L_N);
	CHECK(l[L_INIT].found && l[L_NOINSTR_S].found && l[L_ENTRY_S].found);
	CHECK_EQ_U64(sites_in(t, l[L_INIT].value, l[L_INIT].value + l[L_INIT].size), 0);
	CHECK_EQ_U64(sites_in(t, l[L_ALTREPL].value, l[L_ALTREPL].value + l[L_ALTREPL].size), 0);
	CHECK_EQ_U64(sites_in(t, l[L_EXIT].value, l[L_EXIT].value + l[L_EXIT].size), 0);
	CHECK_EQ_U64(sites_in(t, l[L_NOINSTR_S].value, l[L_NOINSTR_E].value), 0);
	CHECK_EQ_U64(sites_in(t, l[L_ENTRY_S].value, l[L_ENTRY_E].value), 0);
	/* The in-kernel sanitizer's runtime is left out by name. */
	CHECK(l[L_TSAN_READ8].found);
	CHECK_EQ_U64(
		sites_in(t, l[L_TSAN_READ8].value, l[L_TSAN_READ8].value + l[L_TSAN_READ8].size),
		0);
	check_get_avenrun(t, l);
	check_race_test(t, l);
	if (l[L_PLAIN_WRITE].found)
		check_keep_functions(path, t, l);
	check_case_done(path, before);
	sample_table_free(t);
}

/* The cached vmlinux of build-vmlinux.sh's @config in this tree, or NULL. */
static const char *cached_vmlinux(const char *config, char *buf, size_t len)
{
	const char *top = getenv("top_srcdir"), *home = getenv("HOME"),
		   *env = getenv("CSAN_LINUX_CACHE");
	const char *dirs[3] = { env, "/var/cache/csan-vmm/linux", NULL };
	char cmd[4096], key[256] = "", home_cache[4096];
	FILE *p;
	size_t i;

	snprintf(cmd, sizeof(cmd),
		 "sh '%s/tools/linux/build-vmlinux.sh' --config=%s --print-key 2>/dev/null",
		 top && *top ? top : ".", config);
	p = popen(cmd, "r");
	if (!p)
		return NULL;
	if (!fgets(key, sizeof(key), p))
		key[0] = 0;
	pclose(p);
	key[strcspn(key, "\n")] = 0;
	if (!key[0])
		return NULL;
	if (home) {
		snprintf(home_cache, sizeof(home_cache), "%s/.cache/csan-vmm/linux", home);
		dirs[2] = home_cache;
	}
	for (i = 0; i < 3; i++) {
		if (!dirs[i] || !*dirs[i])
			continue;
		snprintf(buf, len, "%s/%s/vmlinux", dirs[i], key);
		if (access(buf, R_OK) == 0)
			return buf;
	}
	return NULL;
}

/* --sample-only's patterns: shell patterns, comma-separated, each whole. */
static void test_patterns(void)
{
	char longpat[SAMPLE_PATTERN_MAX + 2];

	CHECK(sample_patterns_match("ext4_*", "ext4_map_blocks"));
	CHECK(!sample_patterns_match("ext4_*", "jbd2_journal_start"));
	CHECK(sample_patterns_match("ext4_*,jbd2_*", "jbd2_journal_start"));
	CHECK(sample_patterns_match("a,,b", "b"));
	CHECK(sample_patterns_match("a,", "a"));
	CHECK(!sample_patterns_match("", "a"));
	CHECK(!sample_patterns_match(",", "a"));
	CHECK(!sample_patterns_match("foo", "foobar")); /* the whole name */
	CHECK(sample_patterns_match("foo*", "foo.constprop.0"));
	CHECK(sample_patterns_match("race_test_plain_?ead", "race_test_plain_read"));
	/* A pattern too long to take matches nothing, not its prefix. */
	memset(longpat, 'a', sizeof(longpat) - 2);
	longpat[sizeof(longpat) - 2] = '*';
	longpat[sizeof(longpat) - 1] = '\0';
	CHECK(!sample_patterns_match(longpat, "aaaa"));
	/* Marked by name: atomic_t's helpers and unlocks, not a function that merely says lock. */
	CHECK(sample_marked_function("arch_atomic_read"));
	CHECK(sample_marked_function("atomic_set"));
	CHECK(sample_marked_function("queued_spin_unlock"));
	CHECK(!sample_marked_function("queued_spin_lock_slowpath"));
	CHECK(!sample_marked_function("race_test_plain_read"));
	CHECK(!sample_marked_function(NULL));
	/* Bit locks: the spinning test_bit against the unlock's plain BTR. */
	CHECK(sample_marked_function("constant_test_bit"));
	CHECK(sample_marked_function("arch___clear_bit_unlock"));
	CHECK(!sample_marked_function("arch___clear_bit"));
	CHECK(!sample_marked_function("test_bit_and_more"));
	longpat[SAMPLE_PATTERN_MAX - 1] = '*';
	longpat[SAMPLE_PATTERN_MAX] = '\0';
	CHECK(sample_patterns_match(longpat, longpat));
}

/*
 * A site's bytes in a kernel KASLR moved: absolute 32-bit image
 * addresses relocated by the offset are still the site; anything else
 * that differs is not.
 */
static void test_relocated(void)
{
	/* mov 0xffffffff82a00000(,%rax,8),%rax */
	static const uint8_t want[] = { 0x48, 0x8b, 0x04, 0xc5, 0x00, 0x00, 0xa0, 0x82 };
	/* movq $0xffffffff81000000,0xffffffff82a00000(,%rax,8): displacement and immediate */
	static const uint8_t want2[] = { 0x48, 0xc7, 0x04, 0xc5, 0x00, 0x00, 0xa0,
					 0x82, 0x00, 0x00, 0x00, 0x81 };
	const int64_t off = 0x22200000;
	uint8_t have[sizeof(want2)];

	CHECK(sample_bytes_relocated(want, want, sizeof(want), 0));
	CHECK(sample_bytes_relocated(want, want, sizeof(want), off));
	memcpy(have, want, sizeof(want));
	have[6] = 0xc0, have[7] = 0xa4; /* 0x82a00000 + 0x22200000 */
	CHECK(sample_bytes_relocated(have, want, sizeof(want), off));
	CHECK(!sample_bytes_relocated(have, want, sizeof(want), 0));
	CHECK(!sample_bytes_relocated(have, want, sizeof(want), off + 0x200000));
	/* An opcode byte changed too: another instruction. */
	have[1] = 0x89;
	CHECK(!sample_bytes_relocated(have, want, sizeof(want), off));
	/* A field cut by the instruction's end is no field. */
	CHECK(!sample_bytes_relocated(have + 1, want + 1, 6, off));
	memcpy(have, want2, sizeof(want2));
	have[6] = 0xc0, have[7] = 0xa4;
	have[10] = 0x20, have[11] = 0xa3; /* 0x81000000 + 0x22200000 */
	CHECK(sample_bytes_relocated(have, want2, sizeof(want2), off));
	have[11] = 0xa4; /* the immediate is another value: rewritten */
	CHECK(!sample_bytes_relocated(have, want2, sizeof(want2), off));
}

int main(void)
{
	static const char *const configs[] = { "kcsan", "workload" };
	char path[4096];
	size_t i, found = 0;

	for (i = 0; i < 16; i++)
		regs[i] = 0x100000ull * (i + 1);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_one(&cases[i]);
	test_bit_offset_sign();
	test_ranges();
	test_draw();
	test_patterns();
	test_relocated();

	for (i = 0; i < 2; i++) {
		if (!cached_vmlinux(configs[i], path, sizeof(path))) {
			printf("test-sample-sites: no cached %s test kernel "
			       "(tools/linux/build-vmlinux.sh "
			       "--config=%s builds it)\n",
			       configs[i], configs[i]);
			continue;
		}
		found++;
		check_vmlinux(path);
	}
	if (!found && !check_failures) {
		printf("test-sample-sites: %d checks passed; SKIP: no cached test kernel to count "
		       "sites on\n",
		       check_count);
		return SKIP;
	}
	return check_exit_status("test-sample-sites");
}
