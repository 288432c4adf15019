/* test-report-log.c: counting, rate limiting, the summary, threads. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "watch/report_log.h"
#include "../unit/check.h"
#include "json-check.h"
#include "report-sample.h"
#include "watch-test.h"

#define MS 1000000ull

static struct sym *sym;
static uint64_t fake_now;

static uint64_t fake_clock(void *ctx)
{
	return *(uint64_t *)ctx;
}

/* A second race: leaf (via mid) against the reader. */
static struct csan_hc_report other_race(void)
{
	struct csan_hc_report r = sample_race();

	r.side[0].ip = 0x40101e;
	r.side[0].nret = 2;
	r.side[0].ret[0] = 0x40103c;
	r.side[0].ret[1] = 0x40105c;
	return r;
}

/* The whole contents of @f, which is then closed. */
static char *slurp(FILE *f)
{
	long len;
	char *buf;

	fflush(f);
	len = ftell(f);
	buf = calloc(1, (size_t)len + 1);
	rewind(f);
	if (buf && fread(buf, 1, (size_t)len, f) != (size_t)len)
		buf[0] = '\0';
	fclose(f);
	return buf;
}

static unsigned count_str(const char *hay, const char *needle)
{
	unsigned n = 0;

	for (; hay && (hay = strstr(hay, needle)); hay++)
		n++;
	return n;
}

/* Each line of @json is one valid JSON object. */
static unsigned check_json_lines(const char *json)
{
	unsigned n = 0;
	const char *p = json;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		char *line = strndup(p, nl ? (size_t)(nl - p + 1) : strlen(p));

		CHECK(json_line_ok(line));
		free(line);
		n++;
		p = nl ? nl + 1 : NULL;
	}
	return n;
}

static struct report_log *new_log(FILE *text, FILE *json, unsigned interval, unsigned max)
{
	struct report_log_opts o = {
		.sym = sym,
		.env = { .guest = "symtest.elf", .mode = "hw" },
		.text = text,
		.json = json,
		.interval_ms = interval,
		.max_races = max,
		.now_ns = fake_clock,
		.now_ctx = &fake_now,
	};
	struct report_log *log = NULL;

	fake_now = 5000 * MS; /* the log's time 0 */
	CHECK_EQ_U64(report_log_new(&o, &log), 0);
	return log;
}

static int submit_at(struct report_log *log, uint64_t ms, const struct csan_hc_report *r)
{
	char why[256];

	fake_now = 5000 * MS + ms * MS;
	return report_log_submit(log, r, why, sizeof(why));
}

/* KCSAN's once-per-interval per race, with every repeat counted. */
static void test_rate_limit(void)
{
	FILE *text = tmpfile(), *json = tmpfile();
	struct report_log *log = new_log(text, json, 3000, 0);
	struct csan_hc_report a = sample_race(), b = other_race(), bad = sample_race();
	char why[256], *t, *j;

	CHECK_EQ_U64(submit_at(log, 0, &a), 1);
	CHECK_EQ_U64(submit_at(log, 1000, &a), 0);
	CHECK_EQ_U64(submit_at(log, 1000, &b), 1); /* another race is not held back */
	CHECK_EQ_U64(submit_at(log, 2999, &a), 0);
	CHECK_EQ_U64(submit_at(log, 3000, &a), 1); /* the interval has passed */
	CHECK_EQ_U64(submit_at(log, 4000, &a), 0);
	bad.side[0].size = 0;
	CHECK_EQ_U64(report_log_submit(log, &bad, why, sizeof(why)), -EINVAL);
	CHECK_CONTAINS(why, "side[0].size");
	CHECK_EQ_U64(report_log_total(log), 6);
	CHECK_EQ_U64(report_log_distinct(log), 2);
	report_log_summary(log);
	report_log_free(log);
	t = slurp(text);
	j = slurp(json);
	CHECK_EQ_U64(count_str(t, "BUG: KCSAN: data-race in reader / writer\n"), 2);
	CHECK_EQ_U64(count_str(t, "BUG: KCSAN: data-race in leaf / reader\n"), 1);
	CHECK_CONTAINS(t, "(watch mode: hw)");
	CHECK_CONTAINS(t, "csan-vmm: race summary: 2 distinct races in 6 reports, 3 printed, "
			  "3 repeats within 3000 ms counted only (watch mode: hw)\n");
	CHECK_CONTAINS(t, "csan-vmm:      count  first seen  mode     seen by                      "
			  "    race\n");
	CHECK_CONTAINS(
		t, "csan-vmm:          5      0.000s  hw       soft-watchpoint+debug-register   "
		   "data-race in reader / writer\n");
	CHECK_CONTAINS(
		t, "csan-vmm:          1      1.000s  hw       soft-watchpoint+debug-register   "
		   "data-race in leaf / reader\n");
	/* The summary lists races in the order first seen. */
	CHECK(t && strstr(t, "5      0.000s") < strstr(t, "1      1.000s"));
	/* JSON: the 3 printed reports, a summary per race, the totals. */
	CHECK_EQ_U64(check_json_lines(j), 6);
	CHECK_EQ_U64(count_str(j, "{\"type\":\"report\""), 3);
	CHECK_CONTAINS(j, "{\"type\":\"report\",\"seq\":1,\"time\":0.000000,\"count\":1,");
	CHECK_CONTAINS(j, "{\"type\":\"report\",\"seq\":2,\"time\":1.000000,\"count\":1,");
	CHECK_CONTAINS(j, "{\"type\":\"report\",\"seq\":3,\"time\":3.000000,\"count\":4,");
	CHECK_CONTAINS(j, "{\"type\":\"summary\",\"signature\":\"data-race:reader/writer\","
			  "\"title\":\"BUG: KCSAN: data-race in reader / writer\",\"count\":5,"
			  "\"printed\":2,\"first_seen\":0.000000,\"modes\":\"hw\","
			  "\"mechanisms\":\"soft-watchpoint+debug-register\"}\n");
	CHECK_CONTAINS(j, "{\"type\":\"totals\",\"reports\":6,\"distinct\":2,\"printed\":3,"
			  "\"untracked\":0}\n");
	free(t);
	free(j);
}

/* Interval 0: every report printed; no JSON asked, none written. */
static void test_no_limit(void)
{
	FILE *text = tmpfile();
	struct report_log *log = new_log(text, NULL, 0, 0);
	struct csan_hc_report a = sample_race();
	char *t;
	int i;

	for (i = 0; i < 3; i++)
		CHECK_EQ_U64(submit_at(log, 10, &a), 1);
	report_log_summary(log);
	report_log_free(log);
	t = slurp(text);
	CHECK_EQ_U64(count_str(t, "BUG: KCSAN:"), 3);
	CHECK_CONTAINS(t, "3 printed, 0 repeats");
	free(t);
}

/* A full table still counts the rest, rate-limited as one group. */
static void test_bounded(void)
{
	FILE *text = tmpfile();
	struct report_log *log = new_log(text, NULL, 3000, 1);
	struct csan_hc_report a = sample_race(), b = other_race();
	char *t;

	CHECK_EQ_U64(submit_at(log, 0, &a), 1);
	CHECK_EQ_U64(submit_at(log, 0, &b), 1);
	CHECK_EQ_U64(submit_at(log, 100, &b), 0);
	CHECK_EQ_U64(report_log_total(log), 3);
	CHECK_EQ_U64(report_log_distinct(log), 1);
	report_log_summary(log);
	report_log_free(log);
	t = slurp(text);
	CHECK_CONTAINS(t, "csan-vmm:          2  reports of races beyond the 1 tracked\n");
	free(t);
}

/* Nothing reported, nothing said. */
static void test_empty(void)
{
	FILE *text = tmpfile();
	struct report_log *log = new_log(text, NULL, 3000, 0);
	char *t;

	report_log_summary(log);
	report_log_free(log);
	t = slurp(text);
	CHECK(t && t[0] == '\0');
	free(t);
}

#define THREADS	   4
#define PER_THREAD 100

static void *submitter(void *arg)
{
	struct report_log *log = arg;
	struct csan_hc_report a = sample_race(), b = other_race();
	char why[256];
	int i;

	for (i = 0; i < PER_THREAD; i++)
		if (report_log_submit(log, i & 1 ? &b : &a, why, sizeof(why)) < 0)
			return (void *)1;
	return NULL;
}

/* Reports printed whole: rule, title, ..., rule, never mixed. */
static bool blocks_whole(const char *t, unsigned *blocks)
{
	const char *p = t;
	char rule[80];

	memset(rule, '=', 66);
	strcpy(rule + 66, "\n");
	*blocks = 0;
	while ((p = strstr(p, rule))) {
		const char *end = strstr(p + 67, rule);

		if (strncmp(p + 67, "BUG: KCSAN: data-race in ", 25) != 0 || !end)
			return false;
		/* No report starts inside another. */
		if (strstr(p + 67, "BUG: KCSAN:") != p + 67 ||
		    (strstr(p + 68, "BUG: KCSAN:") && strstr(p + 68, "BUG: KCSAN:") < end))
			return false;
		(*blocks)++;
		p = end + 67;
	}
	return true;
}

struct seen {
	unsigned n;
	struct report_log_race race[4];
	char sig[4][REPORT_SIG_MAX];
};

static int collect(const struct report_log_race *race, void *ctx)
{
	struct seen *s = ctx;

	if (s->n < 4) {
		s->race[s->n] = *race;
		snprintf(s->sig[s->n], sizeof(s->sig[0]), "%s", race->signature);
	}
	s->n++;
	return 0;
}

static int stop_at_first(const struct report_log_race *race, void *ctx)
{
	(*(unsigned *)ctx)++;
	return race->count ? 7 : 0;
}

/* report_log_races: each race once, first-seen order, the other side's mechanism apart. */
static void test_races_iteration(void)
{
	FILE *text = tmpfile();
	struct report_log *log = new_log(text, NULL, 0, 0);
	struct csan_hc_report a = sample_race(), b = other_race();
	struct seen s = { 0 };
	unsigned calls = 0;

	/* b's racing access ran into both the soft watchpoint and a debug register. */
	b.side[0].mechanism = CSAN_MECH_SOFT_AND_HW;
	b.side[1].mechanism = CSAN_MECH_SOFT_WATCH;
	submit_at(log, 250, &b);
	submit_at(log, 1500, &a);
	submit_at(log, 1600, &a);
	CHECK_EQ_U64(report_log_races(log, collect, &s), 0);
	CHECK_EQ_U64(s.n, 2);
	CHECK(strcmp(s.sig[0], "data-race:leaf/reader") == 0);
	CHECK(strcmp(s.sig[1], "data-race:reader/writer") == 0);
	CHECK_EQ_U64(s.race[0].count, 1);
	CHECK_EQ_U64(s.race[1].count, 2);
	CHECK(s.race[0].first_seen > 0.249 && s.race[0].first_seen < 0.251);
	CHECK(s.race[1].first_seen > 1.499 && s.race[1].first_seen < 1.501);
	/* A side both saw counts for both, in the other side's set too. */
	CHECK_EQ_U64(s.race[0].other_mechanisms,
		     (1u << CSAN_MECH_SOFT_WATCH) | (1u << CSAN_MECH_HW_DEBUGREG));
	CHECK_EQ_U64(s.race[0].mechanisms,
		     (1u << CSAN_MECH_SOFT_WATCH) | (1u << CSAN_MECH_HW_DEBUGREG));
	/* The sample's side[0] was soft, side[1] the debug register. */
	CHECK_EQ_U64(s.race[1].other_mechanisms, 1u << CSAN_MECH_SOFT_WATCH);
	CHECK_EQ_U64(s.race[1].mechanisms,
		     (1u << CSAN_MECH_SOFT_WATCH) | (1u << CSAN_MECH_HW_DEBUGREG));
	CHECK_EQ_U64(s.race[1].modes, REPORT_LOG_MODE_HW);
	/* A nonzero return stops the walk and is passed on. */
	CHECK_EQ_U64(report_log_races(log, stop_at_first, &calls), 7);
	CHECK_EQ_U64(calls, 1);
	report_log_free(log);
	fclose(text);
}

/*
 * A sampling run of a kernel with KCSAN in it: KCSAN's own report of a
 * race and the sampler's of the same race share one signature, but only
 * the sampler's count as sampled (what --compare's sample column shows).
 */
static void test_sampled_apart(void)
{
	FILE *text = tmpfile();
	struct report_log *log = new_log(text, NULL, 0, 0);
	struct csan_hc_report own = sample_race(), two = sample_race(), one = sample_race();
	struct seen s = { 0 };

	/* The sampler's two-sided report: a debug register saw side 0. */
	two.side[0].mechanism = CSAN_MECH_HW_DEBUGREG;
	two.side[1].mechanism = CSAN_MECH_SAMPLING;
	/* Its one-sided one: the value changed, nothing trapped. */
	one.kind = CSAN_REPORT_UNKNOWN_ORIGIN;
	one.nsides = 1;
	one.side[0] = one.side[1];
	one.side[0].mechanism = CSAN_MECH_SAMPLING;
	one.side[0].flags = 0;
	memset(&one.side[1], 0, sizeof(one.side[1]));
	own.side[1].mechanism = CSAN_MECH_SOFT_WATCH;
	submit_at(log, 100, &own);
	submit_at(log, 400, &two);
	submit_at(log, 900, &two);
	submit_at(log, 1200, &one);
	CHECK_EQ_U64(report_log_races(log, collect, &s), 0);
	CHECK_EQ_U64(s.n, 2);
	CHECK(strcmp(s.sig[0], "data-race:reader/writer") == 0);
	CHECK_EQ_U64(s.race[0].count, 3);
	CHECK_EQ_U64(s.race[0].sampled_count, 2);
	CHECK(s.race[0].first_seen > 0.099 && s.race[0].first_seen < 0.101);
	CHECK(s.race[0].sampled_first_seen > 0.399 && s.race[0].sampled_first_seen < 0.401);
	/* KCSAN's own soft watchpoint is not what the sampler saw the other side with. */
	CHECK_EQ_U64(s.race[0].other_mechanisms,
		     (1u << CSAN_MECH_SOFT_WATCH) | (1u << CSAN_MECH_HW_DEBUGREG));
	CHECK_EQ_U64(s.race[0].sampled_other_mechanisms, 1u << CSAN_MECH_HW_DEBUGREG);
	CHECK_EQ_U64(s.race[1].count, 1);
	CHECK_EQ_U64(s.race[1].sampled_count, 1);
	CHECK_EQ_U64(s.race[1].sampled_other_mechanisms, 0);
	report_log_free(log);

	/*
	 * Rate-limited apart: KCSAN's report does not hold the sampler's back
	 * (nor the other way), each stream once per interval.
	 */
	log = new_log(text, NULL, 3000, 0);
	CHECK_EQ_U64(submit_at(log, 100, &own), 1);
	CHECK_EQ_U64(submit_at(log, 400, &two), 1);
	CHECK_EQ_U64(submit_at(log, 900, &two), 0);
	CHECK_EQ_U64(submit_at(log, 1000, &own), 0);
	CHECK_EQ_U64(submit_at(log, 3200, &own), 1);
	CHECK_EQ_U64(submit_at(log, 3300, &two), 0);
	CHECK_EQ_U64(submit_at(log, 3400, &two), 1);
	s.n = 0;
	CHECK_EQ_U64(report_log_races(log, collect, &s), 0);
	CHECK_EQ_U64(s.race[0].count, 7);
	CHECK_EQ_U64(s.race[0].sampled_count, 4);
	report_log_free(log);
	fclose(text);
}

static void test_mech_names(void)
{
	char buf[64];

	CHECK(strcmp(report_log_mech_names(0, buf, sizeof(buf)), "") == 0);
	CHECK(strcmp(report_log_mech_names((1u << CSAN_MECH_SOFT_WATCH) |
						   (1u << CSAN_MECH_HW_DEBUGREG),
					   buf, sizeof(buf)),
		     "soft-watchpoint+debug-register") == 0);
	/* Truncated, still terminated. */
	report_log_mech_names((1u << CSAN_MECH_SOFT_WATCH) | (1u << CSAN_MECH_HW_DEBUGREG), buf, 6);
	CHECK(strlen(buf) == 5);
}

static void test_threads(unsigned interval)
{
	FILE *text = tmpfile();
	struct report_log_opts o = { .sym = sym,
				     .env = { .guest = "symtest.elf", .mode = "soft" },
				     .text = text,
				     .interval_ms = interval };
	struct report_log *log;
	pthread_t th[THREADS];
	unsigned blocks = 0;
	void *ret;
	char *t;
	int i;

	CHECK_EQ_U64(report_log_new(&o, &log), 0);
	for (i = 0; i < THREADS; i++)
		CHECK(pthread_create(&th[i], NULL, submitter, log) == 0);
	for (i = 0; i < THREADS; i++) {
		pthread_join(th[i], &ret);
		CHECK(ret == NULL);
	}
	CHECK_EQ_U64(report_log_total(log), THREADS * PER_THREAD);
	CHECK_EQ_U64(report_log_distinct(log), 2);
	report_log_free(log);
	t = slurp(text);
	CHECK(blocks_whole(t, &blocks));
	/* No interval: all printed; a long one: each race once. */
	CHECK_EQ_U64(blocks, interval ? 2 : THREADS * PER_THREAD);
	free(t);
}

/*
 * --watch=sample: a report whose sampled side is the host's code
 * breakpoint says "sampling" in its text, its JSON and the summary, and
 * the run's mode is "sample" throughout.
 */
static void test_sample_mode(void)
{
	FILE *text = tmpfile(), *json = tmpfile();
	struct report_log_opts o = {
		.sym = sym,
		.env = { .guest = "symtest.elf", .mode = "sample" },
		.text = text,
		.json = json,
		.now_ns = fake_clock,
		.now_ctx = &fake_now,
	};
	struct report_log *log = NULL;
	struct csan_hc_report r = sample_race();
	char why[256], *t, *j;

	fake_now = 0;
	CHECK_EQ_U64(report_log_new(&o, &log), 0);
	if (!log)
		return;
	r.side[0].mechanism = CSAN_MECH_HW_DEBUGREG;
	r.side[1].mechanism = CSAN_MECH_SAMPLING;
	r.side[1].flags = 0; /* the sampled instruction itself, before it ran */
	CHECK_EQ_U64(report_log_submit(log, &r, why, sizeof(why)), 1);
	report_log_summary(log);
	report_log_free(log);
	t = slurp(text);
	j = slurp(json);
	CHECK_CONTAINS(t, "(watch mode: sample)\nSeen by: host debug register (write), "
			  "host sampling breakpoint (read)\n");
	CHECK_CONTAINS(t, "counted only (watch mode: sample)\n");
	CHECK_CONTAINS(
		t, "csan-vmm:          1      0.000s  sample   debug-register+sampling          "
		   "data-race in reader / writer\n");
	CHECK_CONTAINS(j, "\"mechanism\":\"sampling\"");
	CHECK_CONTAINS(j, "\"modes\":\"sample\",\"mechanisms\":\"debug-register+sampling\"}");
	free(t);
	free(j);
}

int main(void)
{
	char why[512];
	int err = sym_open(symtest_path(), &sym, why, sizeof(why));

	CHECK_EQ_U64(err, 0);
	if (err) {
		fprintf(stderr, "test-report-log: %s\n", why);
		return check_exit_status("test-report-log");
	}
	test_rate_limit();
	test_no_limit();
	test_bounded();
	test_empty();
	test_races_iteration();
	test_sampled_apart();
	test_mech_names();
	test_sample_mode();
	test_threads(0);
	test_threads(600000); /* long enough for any machine: each race once */
	sym_close(sym);
	return check_exit_status("test-report-log");
}
