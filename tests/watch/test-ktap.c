/* test-ktap.c: the KTAP reader on KUnit output as Linux prints it on its console. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "watch/ktap.h"
#include "../unit/check.h"

static void feed(struct ktap *k, const char *text)
{
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		ktap_line(k, p, len);
		p += len + (nl ? 1 : 0);
	}
}

/* ktap_totals as "suites passed failed skipped incomplete". */
static char *totals(const struct ktap *k)
{
	static char buf[128];
	struct ktap_totals t;

	ktap_totals(k, &t);
	snprintf(buf, sizeof(buf), "%u %u %u %u %u", t.suites, t.passed, t.failed, t.skipped,
		 t.incomplete);
	return buf;
}

static char *printed(const struct ktap *k)
{
	static char buf[4096];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	ktap_print(k, f);
	fclose(f);
	return buf;
}

/* KUnit 6.1's layout, with a KCSAN report and a torture line in between. */
static const char suite_text[] =
	"KTAP version 1\r\n"
	"1..1\r\n"
	"    KTAP version 1\r\n"
	"    # Subtest: kcsan\r\n"
	"    1..4\r\n"
	"    ok 1 - test_basic\r\n"
	"==================================================================\r\n"
	"BUG: KCSAN: data-race in test_kernel_read / test_kernel_write\r\n"
	"ok 7 this line is not indented like a case\r\n"
	"==================================================================\r\n"
	"        # test_novalue_change: ok 1 - threads=2\r\n"
	"        ok 1 - threads=2\r\n"
	"    ok 2 - test_novalue_change\r\n"
	"    not ok 3 - test_barrier_nothreads\r\n"
	"    ok 4 - test_atomic_builtins_missing_barrier # SKIP Test requires ...\r\n"
	"# kcsan: pass:2 fail:1 skip:1 total:4\r\n"
	"# Totals: pass:2 fail:1 skip:1 total:4\r\n"
	"not ok 1 - kcsan\r\n";

static void test_suite(void)
{
	struct ktap k;

	ktap_init(&k);
	feed(&k, suite_text);
	CHECK_EQ_U64(k.nsuites, 1);
	CHECK(strcmp(k.suites[0].name, "kcsan") == 0);
	CHECK_EQ_U64(k.suites[0].passed, 2);
	CHECK_EQ_U64(k.suites[0].failed, 1);
	CHECK_EQ_U64(k.suites[0].skipped, 1);
	CHECK(k.suites[0].done && !k.suites[0].ok);
	CHECK_STREQ(totals(&k), "1 2 1 1 0");
	CHECK_CONTAINS(printed(&k), "linux kunit: kcsan: 2 passed, 1 failed, 1 skipped\n");
}

/* printk time stamps, and a suite cut short by a panic. */
static void test_timestamps_incomplete(void)
{
	struct ktap k;

	ktap_init(&k);
	feed(&k, "[    1.000000]     # Subtest: kcsan\n"
		 "[    1.100000]     ok 1 - test_basic\n"
		 "[    1.200000] Kernel panic - not syncing: oops\n");
	CHECK_EQ_U64(k.suites[0].passed, 1);
	CHECK(!k.suites[0].done);
	CHECK_STREQ(totals(&k), "1 1 0 0 1");
	CHECK_CONTAINS(printed(&k), "linux kunit: kcsan: 1 passed, 0 failed, 0 skipped "
				    "(incomplete");
}

/* Nothing KTAP-like: nothing to report, and no suite in the totals. */
static void test_no_suite(void)
{
	struct ktap k;

	ktap_init(&k);
	feed(&k, "ok 1 - kcsan\n    ok 1 - test_basic\nLinux version 6.1\n");
	CHECK_EQ_U64(k.nsuites, 0);
	CHECK_STREQ(totals(&k), "0 0 0 0 0");
}

/* The console QEMU TCG printed for tools/linux's kernel (tests/linux/). */
static void test_captured_qemu_log(void)
{
	char line[1024];
	struct ktap k;
	FILE *f = fopen(KTAP_FIXTURE, "r");

	if (!f) {
		fprintf(stderr, "cannot read %s\n", KTAP_FIXTURE);
		CHECK(f != NULL);
		return;
	}
	ktap_init(&k);
	while (fgets(line, sizeof(line), f))
		ktap_line(&k, line, strlen(line));
	fclose(f);
	CHECK_EQ_U64(k.nsuites, 1);
	CHECK(strcmp(k.suites[0].name, "kcsan") == 0);
	/* QEMU's own count: "# kcsan: pass:28 fail:0 skip:1 total:29". */
	CHECK_EQ_U64(k.suites[0].passed, 28);
	CHECK_EQ_U64(k.suites[0].failed, 0);
	CHECK_EQ_U64(k.suites[0].skipped, 1);
	CHECK_STREQ(totals(&k), "1 28 0 1 0");
}

int main(void)
{
	test_suite();
	test_timestamps_incomplete();
	test_no_suite();
	test_captured_qemu_log();
	return check_exit_status("test-ktap");
}
