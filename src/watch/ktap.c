/* ktap.c: KUnit's KTAP results read off a Linux console, one line at a time. */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "watch/ktap.h"

/* KUnit nests by four spaces (lib/kunit/test.c, KUNIT_SUBTEST_INDENT). */
#define KTAP_INDENT 4

#define SUBTEST_TAG "# Subtest: "

void ktap_init(struct ktap *k)
{
	memset(k, 0, sizeof(*k));
}

/* Skip printk's "[    1.234567] " time stamp, if the kernel prints one. */
static const char *skip_timestamp(const char *p, const char *end)
{
	const char *q = p;

	if (q == end || *q != '[')
		return p;
	for (q++; q < end && (*q == ' ' || isdigit((unsigned char)*q) || *q == '.'); q++)
		;
	if (q + 1 < end && q[0] == ']' && q[1] == ' ')
		return q + 2;
	return p;
}

/* "ok" / "not ok" at @p; sets *ok and returns the rest, or NULL. */
static const char *result_word(const char *p, const char *end, bool *ok)
{
	if (end - p >= 3 && !memcmp(p, "ok ", 3)) {
		*ok = true;
		return p + 3;
	}
	if (end - p >= 7 && !memcmp(p, "not ok ", 7)) {
		*ok = false;
		return p + 7;
	}
	return NULL;
}

/* The test's name after "N - " or "N " in a result line, into @name. */
static void result_name(const char *p, const char *end, char *name, size_t size)
{
	const char *hash;
	size_t n;

	while (p < end && isdigit((unsigned char)*p))
		p++;
	while (p < end && *p == ' ')
		p++;
	if (end - p >= 2 && p[0] == '-' && p[1] == ' ')
		p += 2;
	hash = memchr(p, '#', (size_t)(end - p));
	if (hash)
		end = hash;
	while (end > p && end[-1] == ' ')
		end--;
	n = (size_t)(end - p) < size - 1 ? (size_t)(end - p) : size - 1;
	memcpy(name, p, n);
	name[n] = '\0';
}

/* A "# SKIP" directive (KTAP: case-insensitive) after the test's name. */
static bool has_skip(const char *p, const char *end)
{
	const char *hash = memchr(p, '#', (size_t)(end - p));

	if (!hash)
		return false;
	for (hash++; hash < end && *hash == ' '; hash++)
		;
	return end - hash >= 4 && !strncasecmp(hash, "skip", 4);
}

static struct ktap_suite *current(struct ktap *k)
{
	return k->nsuites ? &k->suites[k->nsuites - 1] : NULL;
}

static void begin_suite(struct ktap *k, const char *p, const char *end)
{
	struct ktap_suite *s;
	size_t n = (size_t)(end - p);

	if (k->nsuites == KTAP_MAX_SUITES)
		return; /* more suites than we keep: the first ones are reported */
	s = &k->suites[k->nsuites++];
	memset(s, 0, sizeof(*s));
	if (n > sizeof(s->name) - 1)
		n = sizeof(s->name) - 1;
	memcpy(s->name, p, n);
	s->name[n] = '\0';
	k->in_suite = true;
}

void ktap_line(struct ktap *k, const char *line, size_t len)
{
	const char *end = line + len, *p, *rest;
	struct ktap_suite *s = current(k);
	unsigned indent = 0;
	bool ok;

	while (end > line && (end[-1] == '\r' || end[-1] == '\n'))
		end--;
	p = skip_timestamp(line, end);
	while (p < end && *p == ' ') {
		p++;
		indent++;
	}
	if (indent == KTAP_INDENT && (size_t)(end - p) > sizeof(SUBTEST_TAG) - 1 &&
	    !memcmp(p, SUBTEST_TAG, sizeof(SUBTEST_TAG) - 1)) {
		begin_suite(k, p + sizeof(SUBTEST_TAG) - 1, end);
		return;
	}
	rest = result_word(p, end, &ok);
	if (!rest || !s || !k->in_suite)
		return;
	if (indent == KTAP_INDENT) {
		if (!ok)
			s->failed++;
		else if (has_skip(rest, end))
			s->skipped++;
		else
			s->passed++;
	} else if (indent == 0) {
		char name[KTAP_NAME_MAX];

		result_name(rest, end, name, sizeof(name));
		if (strcmp(name, s->name))
			return; /* another suite's line: not the one we are in */
		s->done = true;
		s->ok = ok;
		k->in_suite = false;
	}
}

unsigned ktap_print(const struct ktap *k, FILE *out)
{
	unsigned i;

	for (i = 0; i < k->nsuites; i++) {
		const struct ktap_suite *s = &k->suites[i];

		fprintf(out, "linux kunit: %s: %u passed, %u failed, %u skipped%s\n", s->name,
			s->passed, s->failed, s->skipped,
			s->done ? "" : " (incomplete: no result line for the suite)");
	}
	return k->nsuites;
}

void ktap_totals(const struct ktap *k, struct ktap_totals *t)
{
	unsigned i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < k->nsuites; i++) {
		const struct ktap_suite *s = &k->suites[i];

		t->passed += s->passed;
		t->failed += s->failed;
		t->skipped += s->skipped;
		t->incomplete += !s->done;
	}
	t->suites = k->nsuites;
}
