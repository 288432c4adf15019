/* sample_filter.c: a site table cut down to the functions a user names (--sample-only). */
#include <fnmatch.h>
#include <string.h>

#include "watch/sample_sites.h"
#include "watch/sym.h"

bool sample_patterns_match(const char *patterns, const char *name)
{
	char pat[SAMPLE_PATTERN_MAX + 1];
	const char *p = patterns;

	while (*p) {
		size_t len = strcspn(p, ",");

		/* A pattern too long for the buffer matches nothing rather than a prefix of it. */
		if (len && len <= SAMPLE_PATTERN_MAX) {
			memcpy(pat, p, len);
			pat[len] = '\0';
			if (fnmatch(pat, name, 0) == 0)
				return true;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return false;
}

size_t sample_table_keep_functions(struct sample_table *t, struct sym *sym, const char *patterns)
{
	size_t i, n, retired = 0;

	sample_table_sort(t);
	n = sample_table_count(t);
	for (i = 0; i < n; i++) {
		const struct sample_site *s = sample_table_site(t, i);
		const char *name = NULL;
		uint64_t start, size;

		if (s->retired)
			continue;
		if (sym_function_at(sym, s->addr, &start, &size, &name) == 0 && name &&
		    sample_patterns_match(patterns, name))
			continue;
		sample_table_retire(t, s->addr);
		retired++;
	}
	return retired;
}

/*
 * The kernel's marked accesses that a machine instruction cannot show:
 * atomic_t's reads and sets are plain MOVs (arch/x86/include/asm/atomic.h),
 * and a spinlock's unlock is a plain store with release order.  Their
 * inline functions stay in the DWARF, so an access inlined from one of
 * these is marked, as KCSAN would see it.  READ_ONCE and WRITE_ONCE are
 * macros and leave no such trace: a race between two of them still
 * looks plain here.
 */
static const char *const marked_prefixes[] = {
	"arch_atomic",	      "raw_atomic",	     "atomic_",
	"atomic64_",	      "atomic_long_",	     "queued_spin_unlock",
	"queued_read_unlock", "queued_write_unlock",
};

/*
 * The same by exact name, for bit operations.  test_bit() is an atomic
 * read to KCSAN (include/asm-generic/bitops/instrumented-non-atomic.h),
 * though x86 makes it a plain MOV or BT.  __clear_bit_unlock() is the
 * release store of a bit lock (bit_spin_unlock, hlist_bl_unlock): KCSAN
 * sees a plain aligned long write, which its default
 * KCSAN_ASSUME_PLAIN_WRITES_ATOMIC takes as atomic, so a waiter spinning
 * on test_bit() against it is no race to KCSAN; x86 makes it a plain BTR.
 */
static const char *const marked_names[] = {
	"test_bit",	      "_test_bit",		"arch_test_bit",
	"constant_test_bit",  "variable_test_bit",	"test_bit_acquire",
	"_test_bit_acquire",  "arch_test_bit_acquire",	"__clear_bit_unlock",
	"arch___clear_bit_unlock",
};

bool sample_marked_function(const char *name)
{
	size_t i;

	if (!name)
		return false;
	for (i = 0; i < sizeof(marked_prefixes) / sizeof(marked_prefixes[0]); i++)
		if (strncmp(name, marked_prefixes[i], strlen(marked_prefixes[i])) == 0)
			return true;
	for (i = 0; i < sizeof(marked_names) / sizeof(marked_names[0]); i++)
		if (strcmp(name, marked_names[i]) == 0)
			return true;
	return false;
}

bool sample_access_marked(struct sym *sym, uint64_t pc, bool after)
{
	struct sym_frame frames[SYM_MAX_FRAMES];
	int i, n = sym_lookup(sym, pc, after ? SYM_RETADDR : 0, frames, SYM_MAX_FRAMES);

	for (i = 0; i < n; i++)
		if (sample_marked_function(frames[i].func))
			return true;
	return false;
}
