/* ktap.h: KUnit's KTAP results read off a Linux console, one line at a time. */
#ifndef CSAN_WATCH_KTAP_H
#define CSAN_WATCH_KTAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define KTAP_MAX_SUITES 16
#define KTAP_NAME_MAX	64

/* One top-level KUnit suite ("# Subtest: kcsan" ... "ok 1 - kcsan"). */
struct ktap_suite {
	char name[KTAP_NAME_MAX];
	unsigned passed, failed, skipped; /* its test cases so far */
	bool done;			  /* its own ok / not ok line was seen */
	bool ok;			  /* ... and said ok */
};

struct ktap {
	struct ktap_suite suites[KTAP_MAX_SUITES];
	unsigned nsuites;
	bool in_suite; /* between a suite's "# Subtest:" and its result line */
};

/* Every suite's cases added up, for the exit status and the closing line. */
struct ktap_totals {
	unsigned suites;		  /* suites seen (0: no KUnit output at all) */
	unsigned passed, failed, skipped; /* their test cases */
	unsigned incomplete;		  /* suites with no result line of their own */
};

/* ktap_init - an empty result set. */
void ktap_init(struct ktap *k);

/*
 * ktap_line - take one console line (@len bytes, no newline; a trailing
 * '\r' and a printk "[ seconds] " time stamp are allowed).  Lines that are
 * not KTAP are ignored, so the whole console may be fed.  Test cases are
 * the ok / not ok lines one level (4 spaces) inside a suite; a
 * "# SKIP" directive counts as skipped.  Deeper lines (parameterized
 * cases' own results) are not counted: their case line sums them up.
 */
void ktap_line(struct ktap *k, const char *line, size_t len);

/*
 * ktap_print - one line per suite on @out:
 * "linux kunit: NAME: N passed, N failed, N skipped", with
 * " (incomplete: no result line for the suite)" when it never finished.
 * Returns the number of suites printed.
 */
unsigned ktap_print(const struct ktap *k, FILE *out);

/*
 * ktap_totals - every suite of @k added up into @t.  A suite with no result
 * line (the kernel crashed or hung in it, or the run was stopped) counts
 * as incomplete, its cases so far as they came.
 */
void ktap_totals(const struct ktap *k, struct ktap_totals *t);

#endif /* CSAN_WATCH_KTAP_H */
