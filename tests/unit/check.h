/* check.h: the few assertion macros the host unit tests share. */
#ifndef CSAN_TESTS_CHECK_H
#define CSAN_TESTS_CHECK_H

#include <stdio.h>
#include <string.h>

/*
 * Each failed check prints file:line and the expression and is counted;
 * a test runs all its checks and exits with check_exit_status(), so one
 * run shows every failure, not just the first.
 */
static int check_failures;
static int check_count;

#define CHECK(cond)                                                             \
	do {                                                                    \
		check_count++;                                                  \
		if (!(cond)) {                                                  \
			check_failures++;                                       \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__,  \
				__LINE__, #cond);                               \
		}                                                               \
	} while (0)

#define CHECK_EQ_U64(a, b)                                                      \
	do {                                                                    \
		unsigned long long a_ = (a), b_ = (b);                          \
		check_count++;                                                  \
		if (a_ != b_) {                                                 \
			check_failures++;                                       \
			fprintf(stderr, "%s:%d: %s == %s: 0x%llx != 0x%llx\n",  \
				__FILE__, __LINE__, #a, #b, a_, b_);            \
		}                                                               \
	} while (0)

/* CHECK_CONTAINS: the string @hay contains @needle. */
#define CHECK_CONTAINS(hay, needle)                                             \
	do {                                                                    \
		const char *h_ = (hay), *n_ = (needle);                         \
		check_count++;                                                  \
		if (!h_ || !strstr(h_, n_)) {                                   \
			check_failures++;                                       \
			fprintf(stderr, "%s:%d: \"%s\" does not contain \"%s\"\n", \
				__FILE__, __LINE__, h_ ? h_ : "(null)", n_);    \
		}                                                               \
	} while (0)

/* CHECK_STREQ: the strings @a and @b are equal (both shown when not). */
#define CHECK_STREQ(a, b)                                                       \
	do {                                                                    \
		const char *a_ = (a), *b_ = (b);                                \
		check_count++;                                                  \
		if (!a_ || !b_ || strcmp(a_, b_)) {                             \
			check_failures++;                                       \
			fprintf(stderr, "%s:%d: %s == %s: \"%s\" != \"%s\"\n",      \
				__FILE__, __LINE__, #a, #b, a_ ? a_ : "(null)", \
				b_ ? b_ : "(null)");                            \
		}                                                               \
	} while (0)

/*
 * check_case_done - after the checks of one case of a table, begun when
 * check_failures was @before: name the case when one of them failed, so
 * the file:line of a loop's check says which case it was.
 */
static inline void check_case_done(const char *name, int before)
{
	if (check_failures != before)
		fprintf(stderr, "  (in case \"%s\")\n", name);
}

static inline int check_exit_status(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
	return check_failures ? 1 : 0;
}

#endif /* CSAN_TESTS_CHECK_H */
