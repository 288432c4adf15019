/* test-verdict.c: every row of the exit-status table, its precedence, the closing line and JSON. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmm/base/exit_status.h"
#include "vmm/run/verdict.h"
#include "check.h"
#include "../watch/json-check.h"

/* A run that ended @end with @races reports, nothing else seen. */
static struct verdict_facts facts(enum vm_end end, uint64_t races)
{
	struct verdict_facts f = { .end = { .end = end }, .races = races };

	guest_findings_init(&f.seen);
	return f;
}

static struct verdict_facts with_workload(struct verdict_facts f, int status)
{
	f.seen.workload_expected = true;
	f.seen.workload_status = status;
	return f;
}

static struct verdict_facts with_kunit(struct verdict_facts f, unsigned passed, unsigned failed,
				       unsigned skipped, unsigned incomplete)
{
	f.seen.kunit_suites = 1 + incomplete;
	f.seen.kunit_passed = passed;
	f.seen.kunit_failed = failed;
	f.seen.kunit_skipped = skipped;
	f.seen.kunit_incomplete = incomplete;
	return f;
}

static struct verdict_facts crashed(struct verdict_facts f)
{
	f.seen.crashed = true;
	return f;
}

/* A workload status seen without one being asked for. */
static struct verdict_facts unasked_workload(struct verdict_facts f, int status)
{
	f.seen.workload_status = status;
	return f;
}

/* Every row of the exit-status table, and which wins when a run has several. */
static void test_status(void)
{
	const struct {
		const char *name;
		struct verdict_facts f;
		int want;
	} cases[] = {
		/* 0 and 1: a guest that finished (or was told to quit) answers "races?". */
		{ "finished, no races", facts(VM_END_EXIT, 0), EXIT_CLEAN },
		{ "finished, races", facts(VM_END_EXIT, 3), EXIT_RACES },
		{ "workload passed", with_workload(facts(VM_END_EXIT, 0), 0), EXIT_CLEAN },
		{ "workload passed, races", with_workload(facts(VM_END_EXIT, 1), 0), EXIT_RACES },
		{ "KUnit passed, races", with_kunit(facts(VM_END_EXIT, 72), 28, 0, 1, 0),
		  EXIT_RACES },
		{ "KUnit passed", with_kunit(facts(VM_END_EXIT, 0), 28, 0, 1, 0), EXIT_CLEAN },
		/* A quit is the way to end a guest that never ends by itself. */
		{ "quit, no races", facts(VM_END_QUIT, 0), EXIT_CLEAN },
		{ "quit, races", facts(VM_END_QUIT, 2), EXIT_RACES },

		/* 5: the workload failed, and that wins over races. */
		{ "workload failed", with_workload(facts(VM_END_EXIT, 0), 1),
		  EXIT_WORKLOAD_FAILED },
		{ "workload failed, races", with_workload(facts(VM_END_EXIT, 5), 1),
		  EXIT_WORKLOAD_FAILED },
		{ "workload not found (127)", with_workload(facts(VM_END_EXIT, 0), 127),
		  EXIT_WORKLOAD_FAILED },
		/* A workload that was to report and never did, in a guest that ended by itself. */
		{ "workload silent at an orderly end", with_workload(facts(VM_END_EXIT, 0), -1),
		  EXIT_WORKLOAD_FAILED },
		/* None asked for, none reported: nothing failed. */
		{ "no workload asked for, none reported",
		  unasked_workload(facts(VM_END_EXIT, 0), -1), EXIT_CLEAN },
		/* Any KUnit case failed; a suite with no result line at an orderly end. */
		{ "a KUnit case failed", with_kunit(facts(VM_END_EXIT, 0), 27, 1, 1, 0),
		  EXIT_WORKLOAD_FAILED },
		{ "a KUnit case failed, races", with_kunit(facts(VM_END_EXIT, 40), 27, 1, 1, 0),
		  EXIT_WORKLOAD_FAILED },
		{ "a KUnit suite incomplete at an orderly end",
		  with_kunit(facts(VM_END_EXIT, 0), 3, 0, 0, 1), EXIT_WORKLOAD_FAILED },
		/* A workload that passed and a KUnit case that failed: failed. */
		{ "workload passed, a KUnit case failed",
		  with_kunit(with_workload(facts(VM_END_EXIT, 0), 0), 1, 1, 0, 0),
		  EXIT_WORKLOAD_FAILED },
		/*
		 * A quit cuts the workload short: its silence and an unfinished suite
		 * are not failures, but what it already reported is.
		 */
		{ "quit, workload silent, races", with_workload(facts(VM_END_QUIT, 1), -1),
		  EXIT_RACES },
		{ "quit, KUnit suite incomplete", with_kunit(facts(VM_END_QUIT, 0), 3, 0, 0, 1),
		  EXIT_CLEAN },
		{ "quit, a KUnit case failed", with_kunit(facts(VM_END_QUIT, 1), 3, 1, 0, 1),
		  EXIT_WORKLOAD_FAILED },
		{ "quit, workload failed", with_workload(facts(VM_END_QUIT, 0), 2),
		  EXIT_WORKLOAD_FAILED },

		/* 3 and 4: a crash wins over a timeout, both over the workload and races. */
		{ "fault", facts(VM_END_FAULT, 0), EXIT_CRASH },
		{ "fault, workload and KUnit failed, races",
		  with_kunit(with_workload(facts(VM_END_FAULT, 9), 1), 1, 2, 0, 1), EXIT_CRASH },
		/* Linux panicked, then rebooted by itself (panic=N): a crash all the same. */
		{ "panic, then reboot", crashed(facts(VM_END_EXIT, 0)), EXIT_CRASH },
		/* ... or was still printing its panic at the timeout: the hang is the crash's. */
		{ "panic, then timeout", crashed(facts(VM_END_TIMEOUT, 0)), EXIT_CRASH },
		{ "timeout", facts(VM_END_TIMEOUT, 0), EXIT_TIMEOUT },
		{ "timeout, races", facts(VM_END_TIMEOUT, 12), EXIT_TIMEOUT },
		/* The workload never finished: its failure so far does not decide. */
		{ "timeout, workload silent, a KUnit case failed",
		  with_kunit(with_workload(facts(VM_END_TIMEOUT, 1), -1), 2, 1, 0, 1),
		  EXIT_TIMEOUT },
		{ "timeout, workload failed", with_workload(facts(VM_END_TIMEOUT, 0), 3),
		  EXIT_TIMEOUT },

		/* 130 and 2 say nothing about the guest: they win over everything it did. */
		{ "signal", facts(VM_END_SIGNAL, 0), EXIT_INTERRUPTED },
		{ "signal after a crash, failures and races",
		  crashed(with_kunit(with_workload(facts(VM_END_SIGNAL, 1000), 1), 0, 1, 0, 1)),
		  EXIT_INTERRUPTED },
		{ "host error", facts(VM_END_HOST_ERROR, 0), EXIT_USAGE },
		{ "host error after a crash, failures and races",
		  crashed(with_workload(facts(VM_END_HOST_ERROR, 4), 1)), EXIT_USAGE },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int before = check_failures;

		CHECK_EQ_U64(verdict_status(&cases[i].f), cases[i].want);
		check_case_done(cases[i].name, before);
	}
}

/* Linux's KCSAN reports with no vmlinux to log them by are races too. */
static void test_unlogged_races(void)
{
	struct verdict_facts f = facts(VM_END_EXIT, 0);
	char buf[128];

	f.seen.races_unlogged = 2;
	CHECK_EQ_U64(verdict_status(&f), EXIT_RACES);
	CHECK_EQ_U64(verdict_races(&f), 2);
	f.races = 3;
	CHECK_EQ_U64(verdict_races(&f), 5);
	CHECK_STREQ(verdict_line(buf, sizeof(buf), &f, verdict_status(&f)),
		    "exit status 1 (races): 5 race reports; workload: none; KUnit: none");
}

/* Each word beside its status: a failed check shows both words. */
static void test_words(void)
{
	static const struct {
		int status;
		const char *word;
	} words[] = {
		{ EXIT_CLEAN, "clean" },
		{ EXIT_RACES, "races" },
		{ EXIT_USAGE, "error" },
		{ EXIT_CRASH, "crash" },
		{ EXIT_TIMEOUT, "timeout" },
		{ EXIT_WORKLOAD_FAILED, "workload-failed" },
		{ EXIT_INTERRUPTED, "interrupted" },
		{ 125, "unknown" },
	};
	static const struct {
		enum vm_end end;
		const char *word;
	} ends[] = {
		{ VM_END_EXIT, "exit" },
		{ VM_END_FAULT, "fault" },
		{ VM_END_TIMEOUT, "timeout" },
		{ VM_END_SIGNAL, "signal" },
		{ VM_END_HOST_ERROR, "host-error" },
		{ VM_END_QUIT, "quit" },
	};
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		CHECK_STREQ(verdict_word(words[i].status), words[i].word);
	for (i = 0; i < sizeof(ends) / sizeof(ends[0]); i++)
		CHECK_STREQ(verdict_end_word(ends[i].end), ends[i].word);
}

/* The closing line as verdict_line makes it for @f and its status. */
static const char *line(struct verdict_facts f)
{
	static char buf[256];

	return verdict_line(buf, sizeof(buf), &f, verdict_status(&f));
}

/* The closing line always has the status, its word, races, workload and KUnit. */
static void test_line(void)
{
	const struct {
		const char *name;
		struct verdict_facts f;
		const char *want;
	} cases[] = {
		{ "clean", facts(VM_END_EXIT, 0),
		  "exit status 0 (clean): 0 race reports; workload: none; KUnit: none" },
		{ "one race", facts(VM_END_EXIT, 1),
		  "exit status 1 (races): 1 race report; workload: none; KUnit: none" },
		{ "workload failed", with_workload(facts(VM_END_EXIT, 3), 1),
		  "exit status 5 (workload-failed): 3 race reports; workload: exit status 1; "
		  "KUnit: none" },
		{ "workload silent", with_workload(facts(VM_END_EXIT, 0), -1),
		  "exit status 5 (workload-failed): 0 race reports; workload: no exit status "
		  "reported; KUnit: none" },
		{ "a KUnit case failed", with_kunit(facts(VM_END_EXIT, 72), 27, 1, 1, 0),
		  "exit status 5 (workload-failed): 72 race reports; workload: none; "
		  "KUnit: 27 passed, 1 failed, 1 skipped" },
		{ "timeout, a suite incomplete", with_kunit(facts(VM_END_TIMEOUT, 0), 3, 0, 0, 1),
		  "exit status 4 (timeout): 0 race reports; workload: none; "
		  "KUnit: 3 passed, 0 failed, 0 skipped, 1 suite incomplete" },
		{ "fault, two suites incomplete", with_kunit(facts(VM_END_FAULT, 0), 0, 0, 0, 2),
		  "exit status 3 (crash): 0 race reports; workload: none; "
		  "KUnit: 0 passed, 0 failed, 0 skipped, 2 suites incomplete" },
		{ "signal", facts(VM_END_SIGNAL, 1000),
		  "exit status 130 (interrupted): 1000 race reports; workload: none; KUnit: none" },
	};
	char small[24];
	struct verdict_facts f = facts(VM_END_EXIT, 3);
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int before = check_failures;

		CHECK_STREQ(line(cases[i].f), cases[i].want);
		check_case_done(cases[i].name, before);
	}
	/* Cut to the buffer, still a string. */
	CHECK_STREQ(verdict_line(small, sizeof(small), &f, 1), "exit status 1 (races): ");
	CHECK(verdict_line(small, 0, &f, 1) == small);
}

/* The "exit" record of --report-json: @f as verdict_json writes it. */
static char *json(struct verdict_facts f, const char *mode)
{
	static char buf[512];
	FILE *out = fmemopen(buf, sizeof(buf), "w");

	verdict_json(out, &f, verdict_status(&f), mode);
	fclose(out);
	return buf;
}

static void test_json(void)
{
	const char *j;

	j = json(facts(VM_END_EXIT, 0), "soft");
	CHECK(json_line_ok(j));
	CHECK_STREQ(j, "{\"type\":\"exit\",\"status\":0,\"word\":\"clean\",\"end\":\"exit\","
		       "\"mode\":\"soft\",\"reports\":0,\"workload_status\":null,"
		       "\"workload_expected\":false,\"kunit\":null}\n");
	j = json(with_kunit(with_workload(facts(VM_END_TIMEOUT, 7), 2), 27, 1, 1, 1), "hw");
	CHECK(json_line_ok(j));
	CHECK_STREQ(j, "{\"type\":\"exit\",\"status\":4,\"word\":\"timeout\",\"end\":\"timeout\","
		       "\"mode\":\"hw\",\"reports\":7,\"workload_status\":2,"
		       "\"workload_expected\":true,\"kunit\":{\"suites\":2,\"passed\":27,"
		       "\"failed\":1,\"skipped\":1,\"incomplete\":1}}\n");
}

/* --compare's runs together: the more serious, in the order 130, 2, 3, 4, 5, 1, 0. */
static void test_combine(void)
{
	static const int order[] = { EXIT_CLEAN, EXIT_RACES, EXIT_WORKLOAD_FAILED, EXIT_TIMEOUT,
				     EXIT_CRASH, EXIT_USAGE, EXIT_INTERRUPTED };
	size_t n = sizeof(order) / sizeof(order[0]), i, k;

	for (i = 0; i < n; i++)
		for (k = 0; k < n; k++) {
			int want = order[i > k ? i : k];

			CHECK_EQ_U64(verdict_combine(order[i], order[k]), want);
		}
	/* A status no run gives is an error, never a pass. */
	CHECK_EQ_U64(verdict_combine(EXIT_CLEAN, 125), EXIT_USAGE);
	CHECK_EQ_U64(verdict_combine(125, EXIT_RACES), EXIT_USAGE);
	CHECK_EQ_U64(verdict_combine(EXIT_INTERRUPTED, 125), EXIT_INTERRUPTED);
}

int main(void)
{
	test_status();
	test_unlogged_races();
	test_words();
	test_line();
	test_json();
	test_combine();
	return check_exit_status("test-verdict");
}
