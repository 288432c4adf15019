/* test-sym.c: symbolization of tests/watch/symtest.elf, checked exactly. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "watch/sym.h"
#include "../unit/check.h"
#include "watch-test.h"

/* One expected frame; offsets and lines come from gen-symtest.sh's listing. */
struct want {
	const char *func;
	bool inlined;
	const char *file;
	int line, col;
	const char *call_file; /* inline frames only */
	int call_line;
};

#define SYMTEST_C "tests/watch/symtest.c"
#define SYMTEST_H "tests/watch/symtest-inline.h"

static int streq(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* Look @addr up and compare frame by frame, innermost first. */
static void check_chain(struct sym *sym, uint64_t addr, unsigned flags, const char *symbol,
			uint64_t off, uint64_t size, const struct want *w, int nwant)
{
	struct sym_frame fr[SYM_MAX_FRAMES];
	int n = sym_lookup(sym, addr, flags, fr, SYM_MAX_FRAMES), i;

	CHECK_EQ_U64(n, nwant);
	for (i = 0; i < n && i < nwant; i++) {
		if (!streq(fr[i].func, w[i].func) || fr[i].inlined != w[i].inlined ||
		    !streq(fr[i].file, w[i].file) || fr[i].line != w[i].line ||
		    fr[i].col != w[i].col)
			fprintf(stderr, "%#llx frame %d: got %s%s %s:%d:%d\n",
				(unsigned long long)addr, i, fr[i].func,
				fr[i].inlined ? " [inline]" : "", fr[i].file, fr[i].line,
				fr[i].col);
		CHECK(streq(fr[i].func, w[i].func));
		CHECK(fr[i].inlined == w[i].inlined);
		CHECK(streq(fr[i].file, w[i].file));
		CHECK_EQ_U64(fr[i].line, w[i].line);
		CHECK_EQ_U64(fr[i].col, w[i].col);
		if (w[i].inlined) {
			CHECK(streq(fr[i].call_file, w[i].call_file));
			CHECK_EQ_U64(fr[i].call_line, w[i].call_line);
		}
		/* Every level of one address shares its ELF symbol and offset. */
		CHECK(streq(fr[i].symbol, symbol));
		CHECK_EQ_U64(fr[i].sym_off, off);
		CHECK_EQ_U64(fr[i].sym_size, size);
		CHECK_EQ_U64(fr[i].addr, addr);
	}
}

/* Two inline levels, the inner one from a header: leaf -> mid_twice -> hdr_store. */
static void test_inline_chain(struct sym *sym)
{
	static const struct want w[] = {
		{ "hdr_store", true, SYMTEST_H, 10, 15, SYMTEST_C, 18 },
		{ "mid_twice", true, SYMTEST_C, 18, 9, SYMTEST_C, 26 },
		{ "leaf", false, SYMTEST_C, 26, 9, NULL, 0 },
	};

	check_chain(sym, 0x40101e, 0, "leaf", 0xe, 0x20, w, 3);
}

/*
 * A return address: looked up at addr - 1 it is the call in call_leaf,
 * inlined into mid; looked up as is it would be mid's closing brace.
 */
static void test_retaddr(struct sym *sym)
{
	static const struct want ret[] = {
		{ "call_leaf", true, SYMTEST_C, 32, 9, SYMTEST_C, 37 },
		{ "mid", false, SYMTEST_C, 37, 10, NULL, 0 },
	};
	static const struct want exact[] = { { "mid", false, SYMTEST_C, 41, 1, NULL, 0 } };

	check_chain(sym, 0x40103c, SYM_RETADDR, "mid", 0xc, 0x17, ret, 2);
	check_chain(sym, 0x40103c, 0, "mid", 0xc, 0x17, exact, 1);
}

static void test_plain(struct sym *sym)
{
	static const struct want leaf[] = { { "leaf", false, SYMTEST_C, 26, 28, NULL, 0 } };
	static const struct want start[] = { { "_start", false, SYMTEST_C, 115, 1, NULL, 0 } };
	static const struct want ret[] = { { "writer", false, SYMTEST_C, 108, 2, NULL, 0 } };
	/* Hand-written assembly: a symbol, no lines. */
	static const struct want asm_[] = { { "asm_thunk", false, NULL, 0, 0, NULL, 0 } };

	check_chain(sym, 0x401024, 0, "leaf", 0x14, 0x20, leaf, 1);
	check_chain(sym, 0x401120, 0, "_start", 0, 0x38, start, 1);
	check_chain(sym, 0x401110, SYM_RETADDR, "writer", 0x10, 0x1e, ret, 1);
	check_chain(sym, 0x401009, SYM_RETADDR, "asm_thunk", 0x9, 0xc, asm_, 1);
}

/* Outside the ELF: one frame that knows nothing but its address. */
static void test_unknown(struct sym *sym)
{
	struct sym_frame fr[4];
	int n = sym_lookup(sym, 0x500000, 0, fr, 4);

	CHECK_EQ_U64(n, 1);
	CHECK(fr[0].func == NULL && fr[0].symbol == NULL && fr[0].file == NULL);
	CHECK_EQ_U64(fr[0].addr, 0x500000);
	CHECK_EQ_U64(sym_lookup(sym, 0x500000, 0, fr, 0), -EINVAL);
}

/* A short buffer keeps the innermost level and the function frame. */
static void test_truncation(struct sym *sym)
{
	struct sym_frame fr[2];
	int n = sym_lookup(sym, 0x40101e, 0, fr, 2);

	CHECK_EQ_U64(n, 2);
	CHECK(streq(fr[0].func, "hdr_store") && fr[0].inlined);
	CHECK(streq(fr[1].func, "leaf") && !fr[1].inlined);
	n = sym_lookup(sym, 0x40101e, 0, fr, 1);
	CHECK_EQ_U64(n, 1);
	CHECK(streq(fr[0].func, "leaf"));
}

/* Field by field: the structs have padding, which memcmp would read. */
static bool frames_eq(const struct sym_frame *a, const struct sym_frame *b, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (a[i].addr != b[i].addr || !streq(a[i].func, b[i].func) ||
		    !streq(a[i].file, b[i].file) || a[i].line != b[i].line ||
		    a[i].col != b[i].col || !streq(a[i].call_file, b[i].call_file) ||
		    a[i].call_line != b[i].call_line || a[i].call_col != b[i].call_col ||
		    !streq(a[i].symbol, b[i].symbol) || a[i].sym_off != b[i].sym_off ||
		    a[i].sym_size != b[i].sym_size || a[i].inlined != b[i].inlined)
			return false;
	return true;
}

/* Repeats come from the cache, with the same answer; NOCACHE bypasses it. */
static void test_cache(struct sym *sym)
{
	struct sym_frame a[SYM_MAX_FRAMES], b[SYM_MAX_FRAMES];
	uint64_t h0, m0, h1, m1;
	int na, nb;

	na = sym_lookup(sym, 0x40103c, SYM_RETADDR, a, SYM_MAX_FRAMES);
	sym_cache_stats(sym, &h0, &m0);
	nb = sym_lookup(sym, 0x40103c, SYM_RETADDR, b, SYM_MAX_FRAMES);
	sym_cache_stats(sym, &h1, &m1);
	CHECK_EQ_U64(h1, h0 + 1);
	CHECK_EQ_U64(m1, m0);
	CHECK(na == nb && na == 2 && frames_eq(a, b, na));
	/* The same address without SYM_RETADDR is another entry. */
	nb = sym_lookup(sym, 0x40103c, 0, b, SYM_MAX_FRAMES);
	CHECK(nb == 1 && streq(b[0].func, "mid") && b[0].line == 41);
	sym_cache_stats(sym, &h0, &m0);
	sym_lookup(sym, 0x40103c, SYM_RETADDR | SYM_NOCACHE, b, SYM_MAX_FRAMES);
	sym_cache_stats(sym, &h1, &m1);
	CHECK_EQ_U64(h1, h0);
	CHECK_EQ_U64(m1, m0 + 1);
}

/* Write @elf with its e_machine changed, to see an ARM ELF refused. */
static int write_foreign_elf(const char *elf, const char *out)
{
	FILE *in = fopen(elf, "rb"), *o = fopen(out, "wb");
	unsigned char buf[65536];
	size_t n;
	int ok = in && o;

	if (ok && (n = fread(buf, 1, sizeof(buf), in)) > 20) {
		buf[18] = 183; /* EM_AARCH64, little-endian e_machine */
		buf[19] = 0;
		ok = fwrite(buf, 1, n, o) == n;
	}
	if (in)
		fclose(in);
	if (o && fclose(o) != 0)
		ok = 0;
	return ok ? 0 : -1;
}

/* The symbol bounds the instruction decoder starts from (nm -S symtest.elf). */
static void test_function_at(struct sym *sym)
{
	uint64_t start = 0, size = 0;
	const char *name = NULL;

	CHECK(sym_function_at(sym, 0x40101e, &start, &size, &name) == 0);
	CHECK_EQ_U64(start, 0x401010);
	CHECK_EQ_U64(size, 0x20);
	CHECK(streq(name, "leaf"));
	/* The first and the last byte of a function. */
	CHECK(sym_function_at(sym, 0x401120, &start, &size, NULL) == 0);
	CHECK_EQ_U64(start, 0x401120);
	CHECK(sym_function_at(sym, 0x401157, &start, &size, &name) == 0);
	CHECK_EQ_U64(start, 0x401120);
	CHECK_EQ_U64(size, 0x38);
	CHECK(streq(name, "_start"));
	/* The assembly thunk has a size too: symtest.c gives it one with .size. */
	CHECK(sym_function_at(sym, 0x401004, &start, &size, &name) == 0);
	CHECK_EQ_U64(start, 0x401000);
	CHECK(streq(name, "asm_thunk"));
	/* Outside the ELF. */
	CHECK(sym_function_at(sym, 0x900000, &start, &size, &name) == -ENOENT);
	CHECK(sym_function_at(sym, 0, &start, &size, &name) == -ENOENT);
}

/* Names back to addresses, as a Linux report's "leaf+0xe/0x20" needs. */
static void test_addr_of(struct sym *sym)
{
	uint64_t addr = 0, size = 0;

	CHECK(sym_addr_of(sym, "leaf", 0x20, &addr, &size) == 0);
	CHECK_EQ_U64(addr, 0x401010);
	CHECK_EQ_U64(size, 0x20);
	/* kallsyms' size is the gap to the next symbol: a larger hint still finds it. */
	CHECK(sym_addr_of(sym, "_start", 0x40, &addr, NULL) == 0);
	CHECK_EQ_U64(addr, 0x401120);
	CHECK(sym_addr_of(sym, "csan_slow_path", 0, &addr, &size) == 0);
	CHECK_EQ_U64(addr, 0x401090);
	/* Data symbols too (KCSAN names the functions, the VMM may want variables). */
	CHECK(sym_addr_of(sym, "shared_counter", 0, &addr, NULL) == 0);
	CHECK_EQ_U64(addr, 0x403000);
	/* A prefix of a name is not the name. */
	CHECK(sym_addr_of(sym, "lea", 0, &addr, NULL) == -ENOENT);
	CHECK(sym_addr_of(sym, "no_such_function", 0, &addr, NULL) == -ENOENT);
	CHECK(sym_addr_of(sym, "", 0, &addr, NULL) == -ENOENT);
}

/*
 * A moved image (KASLR): the guest's addresses, the offset higher, find
 * the ELF's answers, in the guest's terms; what lies outside the moved
 * image (a module, say) is not moved back.
 */
static void test_image_offset(struct sym *sym)
{
	const int64_t off = 0x200000;
	struct sym_frame fr[SYM_MAX_FRAMES], at_elf[SYM_MAX_FRAMES];
	uint64_t start = 0, size = 0;
	const char *name = NULL;
	int n;

	CHECK(sym_image_offset(sym) == 0);
	n = sym_lookup(sym, 0x40101e, 0, at_elf, SYM_MAX_FRAMES);
	CHECK(n >= 1);
	sym_set_image_offset(sym, off);
	CHECK(sym_image_offset(sym) == off);
	CHECK(sym_function_at(sym, 0x40101e + off, &start, &size, &name) == 0);
	CHECK_EQ_U64(start, 0x401010 + off);
	CHECK_EQ_U64(size, 0x20);
	CHECK(streq(name, "leaf"));
	CHECK(sym_lookup(sym, 0x40101e + off, 0, fr, SYM_MAX_FRAMES) == n);
	for (int i = 0; i < n && n <= SYM_MAX_FRAMES; i++) {
		CHECK(streq(fr[i].func, at_elf[i].func));
		CHECK(fr[i].line == at_elf[i].line);
		CHECK_EQ_U64(fr[i].addr, 0x40101e + off);
	}
	/* Names still answer with the ELF's addresses. */
	CHECK(sym_addr_of(sym, "leaf", 0x20, &start, NULL) == 0);
	CHECK_EQ_U64(start, 0x401010);
	/*
	 * An offset smaller than the image, as KASLR's often is: the moved
	 * image overlaps the ELF's addresses, and an address in both is the
	 * guest's, looked up the offset lower (leaf's 0x401012 is then
	 * asm_thunk's 0x401002).
	 */
	sym_set_image_offset(sym, 0x10);
	CHECK(sym_function_at(sym, 0x40102e, &start, &size, &name) == 0);
	CHECK_EQ_U64(start, 0x401020);
	CHECK(streq(name, "leaf"));
	CHECK(sym_function_at(sym, 0x401012, &start, &size, &name) == 0);
	CHECK_EQ_U64(start, 0x401010);
	CHECK(streq(name, "asm_thunk"));
	sym_set_image_offset(sym, 0);
	CHECK(sym_function_at(sym, 0x40101e, &start, &size, &name) == 0);
	CHECK_EQ_U64(start, 0x401010);
}

static void test_open_errors(void)
{
	char why[256], tmp[] = "/tmp/csan-test-sym-XXXXXX";
	struct sym *sym = (struct sym *)1;
	int fd;

	CHECK_EQ_U64(sym_open("/nonexistent/guest.elf", &sym, why, sizeof(why)), -ENOENT);
	CHECK(sym == NULL);
	CHECK_CONTAINS(why, "/nonexistent/guest.elf");
	fd = mkstemp(tmp);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK(write(fd, "#!/bin/sh\n", 10) == 10);
	close(fd);
	CHECK_EQ_U64(sym_open(tmp, &sym, why, sizeof(why)), -ENOEXEC);
	CHECK_CONTAINS(why, "not an ELF");
	CHECK(write_foreign_elf(symtest_path(), tmp) == 0);
	CHECK_EQ_U64(sym_open(tmp, &sym, why, sizeof(why)), -ENOEXEC);
	CHECK_CONTAINS(why, "x86-64");
	unlink(tmp);
}

int main(void)
{
	char why[512];
	struct sym *sym;
	int err = sym_open(symtest_path(), &sym, why, sizeof(why));

	CHECK_EQ_U64(err, 0);
	if (err) {
		fprintf(stderr, "test-sym: %s\n", why);
		return check_exit_status("test-sym");
	}
	CHECK(sym_has_dwarf(sym));
	CHECK(streq(sym_path(sym), symtest_path()));
	test_inline_chain(sym);
	test_retaddr(sym);
	test_plain(sym);
	test_unknown(sym);
	test_truncation(sym);
	test_cache(sym);
	test_function_at(sym);
	test_addr_of(sym);
	test_image_offset(sym);
	test_open_errors();
	sym_close(sym);
	return check_exit_status("test-sym");
}
