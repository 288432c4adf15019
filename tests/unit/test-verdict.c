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

/* 0 and 1: a guest that finished (or was told to quit) answers "races?". */
static void test_clean_and_races(void)
{
	struct verdict_facts f;
	char buf[128];

	f = facts(VM_END_EXIT, 0);
	CHECK_EQ_U64(verdict_status(&f), EXIT_CLEAN);
	f = facts(VM_END_EXIT, 3);
	CHECK_EQ_U64(verdict_status(&f), EXIT_RACES);
	f = with_workload(facts(VM_END_EXIT, 0), 0);
	CHECK_EQ_U64(verdict_status(&f), EXIT_CLEAN);
	f = with_workload(facts(VM_END_EXIT, 1), 0);
	CHECK_EQ_U64(verdict_status(&f), EXIT_RACES);
	f = with_kunit(facts(VM_END_EXIT, 72), 28, 0, 1, 0);
	CHECK_EQ_U64(verdict_status(&f), EXIT_RACES);
	f = with_kunit(facts(VM_END_EXIT, 0), 28, 0, 1, 0);
	CHECK_EQ_U64(verdict_status(&f), EXIT_CLEAN);
	/* Linux's KCSAN reports with no vmlinux to log them by are races too. */
	f = facts(VM_END_EXIT, 0);
	f.seen.races_unlogged = 2;
	CHECK_EQ_U64(verdict_status(&f), EXIT_RACES);
	CHECK_EQ_U64(verdict_races(&f), 2);
	f.races = 3;
	CHECK_EQ_U64(verdict_races(&f), 5);
	CHECK_STREQ(verdict_line(buf, sizeof(buf), &f, verdict_status(&f)),
		    "exit status 1 (races): 5 race reports; workload: none; KUnit: none");
	/* A quit is the way to end a guest that never ends by itself. */
	f = facts(VM_END_QUIT, 0);
	CHECK_EQ_U64(verdict_status(&f), EXIT_CLEAN);
	f = facts(VM_END_QUIT, 2);
	CHECK_EQ_U64(verdict_status(&f), EXIT_RACES);
}

/* 5: the workload failed, and that wins over races. */
static void test_workload_failed(void)
{
	struct verdict_facts f;

	f = with_workload(facts(VM_END_EXIT, 0), 1);
	CHECK_EQ_U64(verdict_status(&f), EXIT_WORKLOAD_FAILED);
	f = with_workload(facts(VM_END_EXIT, 5), 1);
	CHECK_EQ_U64(verdict_status(&f), EXIT_WORKLOAD_FAILED);
	f = with_workload(facts(VM_END_EXIT, 0), 127); /* the shell's "not found" */
	CHECK_EQ_U64(verdict_status(&f), EXIT_WORKLOAD_FAILED);
	/* A workload that was to report and never did, in a guest that ended by itself. */
	f = with_workload(facts(VM_END_EXIT, 0), -1);
	CHECK_EQ_U64(verdict_status(&f), EXIT_WORKLOAD_FAILED);
	/* None asked for, none reported: nothing failed. */
	f = facts(VM_END_EXIT, 0);
	f.seen.workload_status = -1;
	CHECK_EQ_U64(verdict_status(&f), EXIT_CLEAN);
	/* Any KUnit case failed; a suite with no result line at an orderly end. */
	f = with_kunit(facts(VM_END_EXIT, 0), 27, 1, 1, 0);
	CHECK_EQ_U64(verdict_status(&f), EXIT_WORKLOAD_FAILED);
	f = with_kunit(facts(VM_END_EXIT, 40), 27, 1, 1, 0);
	CHECK_EQ_U64(verdict_status(&f), EXIT_WORKLOAD_FAILED);
	f = with_kunit(facts(VM_END_EXIT, 0), 3, 0, 0, 1);
	CHECK_EQ_U64(verdict_status(&f), EXIT_WORKLOAD_FAILED);
	/* A workload that passed and a KUnit case that failed: failed. */
	f = with_kunit(with_workload(facts(VM_END_EXIT, 0), 0), 1, 1, 0, 0);
	CHECK_EQ_U64(verdict_status(&f), EXIT_WORKLOAD_FAILED);
	/*
	 * A quit cuts the workload short: its silence and an unfinished suite
	 * are not failures, but what it already reported is.
	 */
	f = with_workload(facts(VM_END_QUIT, 1), -1);
	CHECK_EQ_U64(verdict_status(&f), EXIT_RACES);
	f = with_kunit(facts(VM_END_QUIT, 0), 3, 0, 0, 1);
	CHECK_EQ_U64(verdict_status(&f), EXIT_CLEAN);
	f = with_kunit(facts(VM_END_QUIT, 1), 3, 1, 0, 1);
	CHECK_EQ_U64(verdict_status(&f), EXIT_WORKLOAD_FAILED);
	f = with_workload(facts(VM_END_QUIT, 0), 2);
	CHECK_EQ_U64(verdict_status(&f), EXIT_WORKLOAD_FAILED);
}

/* 3 and 4: a crash wins over a timeout, both over the workload and races. */
static void test_crash_and_timeout(void)
{
	struct verdict_facts f;

	f = facts(VM_END_FAULT, 0);
	CHECK_EQ_U64(verdict_status(&f), EXIT_CRASH);
	f = with_kunit(with_workload(facts(VM_END_FAULT, 9), 1), 1, 2, 0, 1);
	CHECK_EQ_U64(verdict_status(&f), EXIT_CRASH);
	/* Linux panicked, then rebooted by itself (panic=N): a crash all the same. */
	f = crashed(facts(VM_END_EXIT, 0));
	CHECK_EQ_U64(verdict_status(&f), EXIT_CRASH);
	/* ... or was still printing its panic at the timeout: the hang is the crash's. */
	f = crashed(facts(VM_END_TIMEOUT, 0));
	CHECK_EQ_U64(verdict_status(&f), EXIT_CRASH);
	f = facts(VM_END_TIMEOUT, 0);
	CHECK_EQ_U64(verdict_status(&f), EXIT_TIMEOUT);
	f = facts(VM_END_TIMEOUT, 12);
	CHECK_EQ_U64(verdict_status(&f), EXIT_TIMEOUT);
	/* The workload never finished: its failure so far does not decide. */
	f = with_kunit(with_workload(facts(VM_END_TIMEOUT, 1), -1), 2, 1, 0, 1);
	CHECK_EQ_U64(verdict_status(&f), EXIT_TIMEOUT);
	f = with_workload(facts(VM_END_TIMEOUT, 0), 3);
	CHECK_EQ_U64(verdict_status(&f), EXIT_TIMEOUT);
}

/* 130 and 2 say nothing about the guest: they win over everything it did. */
static void test_interrupted_and_error(void)
{
	struct verdict_facts f;

	f = facts(VM_END_SIGNAL, 0);
	CHECK_EQ_U64(verdict_status(&f), EXIT_INTERRUPTED);
	f = crashed(with_kunit(with_workload(facts(VM_END_SIGNAL, 1000), 1), 0, 1, 0, 1));
	CHECK_EQ_U64(verdict_status(&f), EXIT_INTERRUPTED);
	f = facts(VM_END_HOST_ERROR, 0);
	CHECK_EQ_U64(verdict_status(&f), EXIT_USAGE);
	f = crashed(with_workload(facts(VM_END_HOST_ERROR, 4), 1));
	CHECK_EQ_U64(verdict_status(&f), EXIT_USAGE);
}

static void test_words(void)
{
	CHECK_STREQ(verdict_word(EXIT_CLEAN), "clean");
	CHECK_STREQ(verdict_word(EXIT_RACES), "races");
	CHECK_STREQ(verdict_word(EXIT_USAGE), "error");
	CHECK_STREQ(verdict_word(EXIT_CRASH), "crash");
	CHECK_STREQ(verdict_word(EXIT_TIMEOUT), "timeout");
	CHECK_STREQ(verdict_word(EXIT_WORKLOAD_FAILED), "workload-failed");
	CHECK_STREQ(verdict_word(EXIT_INTERRUPTED), "interrupted");
	CHECK_STREQ(verdict_word(125), "unknown");
	CHECK_STREQ(verdict_end_word(VM_END_EXIT), "exit");
	CHECK_STREQ(verdict_end_word(VM_END_FAULT), "fault");
	CHECK_STREQ(verdict_end_word(VM_END_TIMEOUT), "timeout");
	CHECK_STREQ(verdict_end_word(VM_END_SIGNAL), "signal");
	CHECK_STREQ(verdict_end_word(VM_END_HOST_ERROR), "host-error");
	CHECK_STREQ(verdict_end_word(VM_END_QUIT), "quit");
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
	char small[24];
	struct verdict_facts f = facts(VM_END_EXIT, 3);

	CHECK_STREQ(line(facts(VM_END_EXIT, 0)),
		    "exit status 0 (clean): 0 race reports; workload: none; KUnit: none");
	CHECK_STREQ(line(facts(VM_END_EXIT, 1)),
		    "exit status 1 (races): 1 race report; workload: none; KUnit: none");
	CHECK_STREQ(line(with_workload(facts(VM_END_EXIT, 3), 1)),
		    "exit status 5 (workload-failed): 3 race reports; workload: exit status 1; "
		    "KUnit: none");
	CHECK_STREQ(line(with_workload(facts(VM_END_EXIT, 0), -1)),
		    "exit status 5 (workload-failed): 0 race reports; workload: no exit status "
		    "reported; KUnit: none");
	CHECK_STREQ(line(with_kunit(facts(VM_END_EXIT, 72), 27, 1, 1, 0)),
		    "exit status 5 (workload-failed): 72 race reports; workload: none; "
		    "KUnit: 27 passed, 1 failed, 1 skipped");
	CHECK_STREQ(line(with_kunit(facts(VM_END_TIMEOUT, 0), 3, 0, 0, 1)),
		    "exit status 4 (timeout): 0 race reports; workload: none; "
		    "KUnit: 3 passed, 0 failed, 0 skipped, 1 suite incomplete");
	CHECK_STREQ(line(with_kunit(facts(VM_END_FAULT, 0), 0, 0, 0, 2)),
		    "exit status 3 (crash): 0 race reports; workload: none; "
		    "KUnit: 0 passed, 0 failed, 0 skipped, 2 suites incomplete");
	CHECK_STREQ(
		line(facts(VM_END_SIGNAL, 1000)),
		"exit status 130 (interrupted): 1000 race reports; workload: none; KUnit: none");
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
	test_clean_and_races();
	test_workload_failed();
	test_crash_and_timeout();
	test_interrupted_and_error();
	test_words();
	test_line();
	test_json();
	test_combine();
	return check_exit_status("test-verdict");
}
