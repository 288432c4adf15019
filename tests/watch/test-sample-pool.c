/* test-sample-pool.c: a loaded module's sampling table, and the pool that draws it with the
 * kernel's. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/check.h"
#include "watch/sample_sites.h"

#define KBASE 0xffffffff81000000ull /* the "vmlinux" text, at its link address */
#define SLIDE 0x2a00000ull	    /* the running kernel's KASLR offset */
#define MBASE 0xffffffffc0002000ull /* the module's first text section */
#define MSEC2 0xffffffffc0003000ull /* its second (the kernel leaves a zeroed gap between) */

/*
 * The module's first section, three functions (bytes from GNU as):
 *   +0x00 mod_work:  mov (%rdi),%eax; mov %eax,0x10(%rdi); ret; nop padding
 *   +0x10 exc_fake:  mov (%rsi),%eax; ret               (a handler: left out)
 *   +0x20 mod_user:  mov 0x8(%rbx),%rax (in the exception table); mov %rax,(%rdx); ret
 * and its second section:
 *   MSEC2 mod_more:  addl $1,0x8(%rbx); ret
 */
static const uint8_t f_work[] = { 0x8b, 0x07, 0x89, 0x47, 0x10, 0xc3 };
static const uint8_t f_exc[] = { 0x8b, 0x06, 0xc3 };
static const uint8_t f_user[] = { 0x48, 0x8b, 0x43, 0x08, 0x48, 0x89, 0x02, 0xc3 };
#define SEC1_LEN 0x30 /* the three at +0x00, +0x10, +0x20, NOPs between */
static const uint8_t sec2[] = { 0x83, 0x43, 0x08, 0x01, 0xc3 };

static const struct {
	uint64_t start, size;
	const char *name;
} funcs[] = {
	{ MBASE + 0x00, 0x06, "mod_work" },
	{ MBASE + 0x10, 0x03, "exc_fake" },
	{ MBASE + 0x20, 0x08, "mod_user" },
	{ MSEC2, sizeof(sec2), "mod_more" },
};

/* The sites the module must give, at their guest addresses. */
static const uint64_t mod_sites[] = { MBASE + 0x00, MBASE + 0x02, MBASE + 0x24, MSEC2 };
#define NMOD (sizeof(mod_sites) / sizeof(mod_sites[0]))

/* The "vmlinux": mov (%rdi),%eax; mov %eax,0x10(%rdi); addl $1,0x8(%rbx); ret. */
static const uint8_t ktext[] = { 0x8b, 0x07, 0x89, 0x47, 0x10, 0x83, 0x43, 0x08, 0x01, 0xc3 };
static const uint64_t k_sites[] = { KBASE + 0, KBASE + 2, KBASE + 5 };
#define NKER (sizeof(k_sites) / sizeof(k_sites[0]))

static int fn_at(void *ctx, uint64_t addr, uint64_t *start, uint64_t *size, const char **name)
{
	size_t i;

	(*(unsigned *)ctx)++;
	for (i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
		if (addr >= funcs[i].start && addr < funcs[i].start + funcs[i].size) {
			*start = funcs[i].start;
			*size = funcs[i].size;
			*name = funcs[i].name;
			return 0;
		}
	return -ENOENT;
}

/* The module's copy as the VMM makes it: one buffer from MBASE, the gap zeroed. */
static uint8_t *module_copy(size_t *len)
{
	uint8_t *c;

	*len = MSEC2 + sizeof(sec2) - MBASE;
	c = calloc(1, *len);
	memset(c, 0x90, SEC1_LEN);
	memcpy(c + 0x00, f_work, sizeof(f_work));
	memcpy(c + 0x10, f_exc, sizeof(f_exc));
	memcpy(c + 0x20, f_user, sizeof(f_user));
	memcpy(c + (MSEC2 - MBASE), sec2, sizeof(sec2));
	return c;
}

static struct sample_table *module_table(const uint8_t *copy)
{
	const struct sample_module_text text[2] = {
		{ MBASE, copy, SEC1_LEN },
		{ MSEC2, copy + (MSEC2 - MBASE), sizeof(sec2) },
	};
	const uint64_t extable[1] = { MBASE + 0x20 };
	struct sample_table *t = NULL;
	const struct sample_stats *st;
	unsigned calls = 0;
	char why[128];
	size_t i;

	CHECK_EQ_U64(
		sample_table_from_module(text, 2, extable, 1, fn_at, &calls, &t, why, sizeof(why)),
		0);
	if (!t)
		return NULL;
	CHECK(calls > 0);
	st = sample_table_stats(t);
	CHECK_EQ_U64(sample_table_count(t), NMOD);
	for (i = 0; i < NMOD && i < sample_table_count(t); i++)
		CHECK_EQ_U64(sample_table_site(t, i)->addr, mod_sites[i]);
	CHECK_EQ_U64(st->count[SAMPLE_KEPT], NMOD);
	CHECK_EQ_U64(st->count[SAMPLE_SKIP_HANDLER_FUNCTION], 2); /* exc_fake's mov and ret */
	CHECK_EQ_U64(st->count[SAMPLE_SKIP_MAY_FAULT], 1);	  /* mod_user's first mov */
	/* The zeroed gap between the sections was not decoded (it reads as add %al,(%rax)). */
	CHECK_EQ_U64(st->text_bytes, SEC1_LEN + sizeof(sec2));
	return t;
}

static struct sample_table *kernel_table(void)
{
	struct sample_table *t = sample_table_new();
	char why[128];

	CHECK(t != NULL);
	CHECK_EQ_U64(sample_table_add_code(t, ktext, sizeof(ktext), KBASE, why, sizeof(why)), 0);
	CHECK_EQ_U64(sample_table_seed(t, 7), 0);
	CHECK_EQ_U64(sample_table_live(t), NKER);
	return t;
}

static int index_of(uint64_t at, const uint64_t *list, size_t n, uint64_t add)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (list[i] + add == at)
			return (int)i;
	return -1;
}

/*
 * @draws draws: every one a live site at its run-time address, every live
 * site drawn; @dead (run-time address, or 0) never.  Uniform over all:
 * each site between half and twice its share (the draw is from a fixed
 * seed, so this is one fixed sequence, not a chance).
 */
static void check_draws(struct sample_pool *p, unsigned draws, bool with_module, uint64_t dead)
{
	unsigned kc[NKER] = { 0 }, mc[NMOD] = { 0 }, i, live = 0;
	size_t share;

	for (i = 0; i < draws; i++) {
		uint64_t at = 0;
		const struct sample_site *s = sample_pool_draw(p, &at);
		int k, m;

		CHECK(s != NULL);
		if (!s)
			return;
		CHECK(at != dead);
		k = index_of(at, k_sites, NKER, SLIDE);
		m = index_of(at, mod_sites, NMOD, 0);
		CHECK(k >= 0 || (with_module && m >= 0));
		CHECK_EQ_U64(s->addr, k >= 0 ? k_sites[k] : at); /* table address; module: as run */
		if (k >= 0)
			kc[k]++;
		else if (m >= 0)
			mc[m]++;
	}
	for (i = 0; i < NKER; i++)
		live += kc[i] > 0;
	for (i = 0; i < NMOD; i++)
		live += mc[i] > 0;
	CHECK_EQ_U64(live, sample_pool_live(p));
	share = draws / sample_pool_live(p);
	for (i = 0; i < NKER + NMOD; i++) {
		uint64_t at = i < NKER ? k_sites[i] + SLIDE : mod_sites[i - NKER];
		unsigned c = i < NKER ? kc[i] : mc[i - NKER];
		const struct sample_site *s = sample_pool_find(p, at, NULL);

		if (s && !s->retired)
			CHECK(c >= share / 2 && c <= 2 * share);
		else
			CHECK_EQ_U64(c, 0);
	}
}

static void test_pool(void)
{
	struct sample_pool *p = sample_pool_new(kernel_table(), 26);
	const struct sample_site *s;
	const uint8_t *expect;
	uint8_t *copy;
	uint64_t base = 0;
	size_t len, live = 0;
	struct sample_table *t;

	CHECK(p != NULL);
	if (!p)
		return;
	sample_pool_set_offset(p, SLIDE);
	check_draws(p, 300, false, 0);

	copy = module_copy(&len);
	t = module_table(copy);
	CHECK_EQ_U64(
		sample_pool_add_module(p, "csan_race_test", MBASE - 0x2000, t, MBASE, copy, len),
		0);
	CHECK_EQ_U64(sample_pool_modules(p), 1);
	CHECK_STREQ(sample_pool_module(p, 0, &base, &live), "csan_race_test");
	CHECK_EQ_U64(base, MBASE - 0x2000);
	CHECK_EQ_U64(live, NMOD);
	CHECK_EQ_U64(sample_pool_live(p), NKER + NMOD);
	/* The same module at the same place again: refused, and what it gave is freed. */
	copy = module_copy(&len);
	CHECK_EQ_U64(sample_pool_add_module(p, "csan_race_test", MBASE - 0x2000, module_table(copy),
					    MBASE, copy, len),
		     (uint64_t)-EEXIST);
	check_draws(p, 700, true, 0);

	/* A module site: found with the bytes it was decoded from; a vmlinux one by its slid
	 * address. */
	s = sample_pool_find(p, MSEC2, &expect);
	CHECK(s && s->addr == MSEC2 && expect && memcmp(expect, sec2, s->len) == 0);
	s = sample_pool_find(p, KBASE + 2 + SLIDE, &expect);
	CHECK(s && s->addr == KBASE + 2 && expect == NULL);
	CHECK(sample_pool_find(p, KBASE + 2, NULL) ==
	      NULL); /* the link address is not where it runs */
	CHECK(sample_pool_find(p, MBASE + 0x11, NULL) == NULL); /* inside exc_fake: no site */

	/* A site rewritten (seen at a hit): retired, never drawn again. */
	CHECK_EQ_U64(sample_pool_retire(p, MBASE + 0x02), 0);
	CHECK_EQ_U64(sample_pool_retire(p, MBASE + 0x02), (uint64_t)-EALREADY);
	CHECK_EQ_U64(sample_pool_live(p), NKER + NMOD - 1);
	check_draws(p, 600, true, MBASE + 0x02);
	CHECK_EQ_U64(sample_pool_retire(p, KBASE + SLIDE), 0);
	check_draws(p, 500, true, KBASE + SLIDE);

	/* Unloaded: its live sites leave, and nothing of it is found or drawn. */
	CHECK_EQ_U64(sample_pool_remove_module(p, "csan_race_test", MBASE - 0x2000), NMOD - 1);
	CHECK_EQ_U64(sample_pool_remove_module(p, "csan_race_test", MBASE - 0x2000),
		     (uint64_t)-ENOENT);
	CHECK_EQ_U64(sample_pool_modules(p), 0);
	CHECK_EQ_U64(sample_pool_live(p), NKER - 1);
	CHECK(sample_pool_find(p, MSEC2, NULL) == NULL);
	CHECK_EQ_U64(sample_pool_retire(p, MSEC2), (uint64_t)-ENOENT);
	check_draws(p, 300, false, KBASE + SLIDE);
	sample_pool_free(p);
}

/* Without function starts (no .ko symbols): one sweep per section, the same sites here. */
static void test_no_functions(void)
{
	size_t len;
	uint8_t *copy = module_copy(&len);
	const struct sample_module_text text[2] = {
		{ MBASE, copy, SEC1_LEN },
		{ MSEC2, copy + (MSEC2 - MBASE), sizeof(sec2) },
	};
	struct sample_table *t = NULL;
	char why[128];

	CHECK_EQ_U64(sample_table_from_module(text, 2, NULL, 0, NULL, NULL, &t, why, sizeof(why)),
		     0);
	/* exc_fake's and mod_user's first movs are sites now: no names, no exception table. */
	CHECK(t && sample_table_count(t) == NMOD + 2);
	sample_table_free(t);
	CHECK_EQ_U64(sample_table_from_module(text, 0, NULL, 0, NULL, NULL, &t, why, sizeof(why)),
		     (uint64_t)-EINVAL);
	CHECK(t == NULL);
	free(copy);
}

int main(void)
{
	test_pool();
	test_no_functions();
	return check_exit_status("test-sample-pool");
}
