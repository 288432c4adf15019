/* test-report.c: report validation, KCSAN-style text and JSON, per kind. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "watch/report.h"
#include "../unit/check.h"
#include "json-check.h"
#include "report-sample.h"
#include "watch-test.h"

static struct sym *sym;
static const struct report_env env = { .guest = "symtest.elf", .mode = "soft" };

/* The text report of @r, or NULL if @r does not symbolize. */
static char *text_of(const struct csan_hc_report *r)
{
	struct report_sym *rs;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (report_symbolize(sym, r, 0, &rs) != 0)
		return NULL;
	f = open_memstream(&buf, &len);
	report_print_text(f, r, rs, &env);
	fclose(f);
	report_sym_free(rs);
	return buf;
}

static char *json_of(const struct csan_hc_report *r)
{
	static const struct report_meta meta = { .seq = 7, .time = 1.25, .count = 3 };
	struct report_sym *rs;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (report_symbolize(sym, r, 0, &rs) != 0)
		return NULL;
	f = open_memstream(&buf, &len);
	report_print_json(f, r, rs, &env, &meta);
	fclose(f);
	report_sym_free(rs);
	return buf;
}

static void check_text_eq(const char *got, const char *want)
{
	CHECK(got && strcmp(got, want) == 0);
	if (got && strcmp(got, want) != 0)
		fprintf(stderr, "--- want:\n%s--- got:\n%s---\n", want, got);
}

/* The whole report, byte for byte: the layout parsers depend on. */
static void test_data_race_text(void)
{
	static const char want[] =
		"==================================================================\n"
		"BUG: KCSAN: data-race in reader / writer\n"
		"\n"
		"write to 0x0000000000403000 of 4 bytes by task 3 on cpu 1:\n"
		" writer+0x10/0x1e tests/watch/symtest.c:108\n"
		" _start+0x36/0x38 tests/watch/symtest.c:119\n"
		"\n"
		"read to 0x0000000000403000 of 4 bytes by interrupt on cpu 0:\n"
		" reader+0xe/0x1c tests/watch/symtest.c:99\n"
		" _start+0x2f/0x38 tests/watch/symtest.c:119\n"
		"\n"
		"value changed: 0x0000002a -> 0x0000002b\n"
		"\n"
		"Reported by csan-vmm on guest symtest.elf (watch mode: soft)\n"
		"Seen by: guest soft watchpoint (write), host debug register (read)\n"
		"==================================================================\n";
	struct csan_hc_report r = sample_race();
	char *t = text_of(&r);

	check_text_eq(t, want);
	free(t);
}

/* Sides swapped: the same title, since the names are sorted. */
static void test_title_sorted(void)
{
	struct csan_hc_report r = sample_race();
	struct csan_report_side s = r.side[0];
	char *t;

	r.side[0] = r.side[1];
	r.side[1] = s;
	t = text_of(&r);
	CHECK_CONTAINS(t, "BUG: KCSAN: data-race in reader / writer\n");
	/* ... while the sides print in the order sent. */
	CHECK(t && strstr(t, "read to") < strstr(t, "write to"));
	free(t);
}

static void test_assert(void)
{
	struct csan_hc_report r = sample_race();
	char *t, *j;

	r.kind = CSAN_REPORT_ASSERT;
	r.side[1].access = CSAN_ACCESS_ASSERT | CSAN_ACCESS_WRITE;
	r.side[1].context = CSAN_CTX_TASK;
	r.side[1].task_id = 9;
	t = text_of(&r);
	CHECK_CONTAINS(t, "BUG: KCSAN: assert: race in reader / writer\n");
	CHECK_CONTAINS(
		t, "\nassert no accesses to 0x0000000000403000 of 4 bytes by task 9 on cpu 0:\n");
	r.side[1].access = CSAN_ACCESS_ASSERT | CSAN_ACCESS_SCOPED;
	free(t);
	t = text_of(&r);
	CHECK_CONTAINS(t, "\nassert no writes (scoped) to ");
	j = json_of(&r);
	CHECK_CONTAINS(j, "\"signature\":\"assert-race:reader/writer\"");
	CHECK_CONTAINS(j, "\"kind\":\"assert-race\"");
	free(t);
	free(j);
}

/* One side, the title with offset, KCSAN's unknown-origin access line. */
static void test_unknown_origin(void)
{
	static const char want[] =
		"==================================================================\n"
		"BUG: KCSAN: data-race in reader+0xe/0x1c\n"
		"\n"
		"race at unknown origin, with read-write (marked) to 0x0000000000403004 of 2 bytes "
		"by task 1 on cpu 2:\n"
		" reader+0xe/0x1c tests/watch/symtest.c:99\n"
		" _start+0x2f/0x38 tests/watch/symtest.c:119\n"
		"\n"
		"value changed: 0x1234 -> 0x1235\n"
		" bits changed: 0x0001 with mask 0x00ff\n"
		"\n"
		"Reported by csan-vmm on guest symtest.elf (watch mode: soft)\n"
		"Seen by: guest soft watchpoint (read-write (marked))\n"
		"==================================================================\n";
	struct csan_hc_report r = sample_race();
	char *t, *j;

	r.kind = CSAN_REPORT_UNKNOWN_ORIGIN;
	r.nsides = 1;
	r.side[0] = r.side[1];
	memset(&r.side[1], 0, sizeof(r.side[1]));
	r.side[0].addr = 0x403004;
	r.side[0].size = 2;
	r.side[0].cpu = 2;
	r.side[0].access = CSAN_ACCESS_COMPOUND | CSAN_ACCESS_WRITE | CSAN_ACCESS_ATOMIC;
	r.side[0].context = CSAN_CTX_TASK;
	r.side[0].task_id = 1;
	r.side[0].mechanism = CSAN_MECH_SOFT_WATCH;
	r.value_flags = CSAN_VALUE_OLD | CSAN_VALUE_NEW | CSAN_VALUE_MASK;
	r.old_value = 0x1234;
	r.new_value = 0x1235;
	r.mask = 0xff;
	t = text_of(&r);
	check_text_eq(t, want);
	j = json_of(&r);
	CHECK_CONTAINS(j, "\"signature\":\"unknown-origin:reader\"");
	CHECK_CONTAINS(j, "\"value\":{\"old\":\"0x1234\",\"new\":\"0x1235\",\"mask\":\"0xff\"}");
	CHECK(j && json_line_ok(j));
	free(t);
	free(j);
	/* A change only outside the mask is no change: no value lines. */
	r.new_value = 0x1334;
	t = text_of(&r);
	CHECK(t && !strstr(t, "value changed") && !strstr(t, "bits changed"));
	free(t);
	/* An assertion's watch seeing an unowned change: KCSAN's title says so. */
	r.side[0].access = CSAN_ACCESS_ASSERT | CSAN_ACCESS_WRITE;
	t = text_of(&r);
	CHECK_CONTAINS(t, "BUG: KCSAN: assert: race in reader+0x");
	CHECK_CONTAINS(t, "race at unknown origin, with assert no accesses to ");
	free(t);
}

static void test_values(void)
{
	struct csan_hc_report r = sample_race();
	char *t;

	/* Equal values: KCSAN prints nothing. */
	r.new_value = r.old_value;
	t = text_of(&r);
	CHECK(t && !strstr(t, "value changed"));
	free(t);
	/* Only one value known: nothing to compare. */
	r = sample_race();
	r.value_flags = CSAN_VALUE_NEW;
	t = text_of(&r);
	CHECK(t && !strstr(t, "value changed"));
	free(t);
	/* The width follows the last side's size; above 8 bytes, no values. */
	r = sample_race();
	r.side[1].size = 8;
	t = text_of(&r);
	CHECK_CONTAINS(t, "value changed: 0x000000000000002a -> 0x000000000000002b\n");
	CHECK(t && !strstr(t, "bits changed"));
	free(t);
	r.side[1].size = 16;
	t = text_of(&r);
	CHECK(t && !strstr(t, "value changed"));
	free(t);
}

/* Runtime frames go from the top only; the stack below stays whole. */
static void test_runtime_frames(void)
{
	struct csan_hc_report r = sample_race();
	char *t = text_of(&r), *j = json_of(&r);

	CHECK(t && !strstr(t, "csan_slow_path") && !strstr(t, "__tsan_"));
	CHECK_CONTAINS(j, "\"dropped\":2");
	CHECK_CONTAINS(j, "\"func\":\"csan_slow_path\"");
	free(t);
	free(j);
	/* Stopped in a runtime function called from nowhere known: keep the last frame. */
	r.side[0].nret = 0;
	t = text_of(&r);
	CHECK_CONTAINS(t, "BUG: KCSAN: data-race in csan_slow_path / reader\n");
	CHECK_CONTAINS(t, " csan_slow_path+0x2/0x9 tests/watch/symtest.c:79\n");
	free(t);
}

/* Inline frames as syzbot shows them, and an address outside the ELF. */
static void test_inline_and_unknown_frames(void)
{
	struct csan_hc_report r = sample_race();
	char *t, *j;

	r.side[0].ip = 0x40101e; /* hdr_store <- mid_twice <- leaf */
	r.side[0].nret = 2;
	r.side[0].ret[0] = 0x40103c; /* call_leaf <- mid */
	r.side[0].ret[1] = 0x500000; /* nothing there */
	t = text_of(&r);
	CHECK_CONTAINS(t, "BUG: KCSAN: data-race in leaf / reader\n");
	CHECK_CONTAINS(t, ":\n hdr_store tests/watch/symtest-inline.h:10 [inline]\n"
			  " mid_twice tests/watch/symtest.c:18 [inline]\n"
			  " leaf+0xe/0x20 tests/watch/symtest.c:26\n"
			  " call_leaf tests/watch/symtest.c:32 [inline]\n"
			  " mid+0xc/0x17 tests/watch/symtest.c:37\n"
			  " 0x0000000000500000\n\n");
	j = json_of(&r);
	CHECK_CONTAINS(j, "\"func\":\"hdr_store\",\"inline\":true,\"symbol\":\"leaf\",\"off\":14,"
			  "\"size\":32,\"file\":\"tests/watch/symtest-inline.h\","
			  "\"full_file\":\"tests/watch/symtest-inline.h\",\"line\":10,"
			  "\"col\":15,\"call_file\":\"tests/watch/symtest.c\","
			  "\"call_full_file\":\"tests/watch/symtest.c\",\"call_line\":18,"
			  "\"call_col\":9}");
	CHECK_CONTAINS(j, "{\"pc\":\"0x500000\",\"func\":null,\"inline\":false,\"symbol\":null");
	CHECK(j && json_line_ok(j));
	free(t);
	free(j);
}

static void test_json(void)
{
	struct csan_hc_report r = sample_race();
	char *j = json_of(&r);

	CHECK(j && json_line_ok(j));
	CHECK_CONTAINS(j, "{\"type\":\"report\",\"seq\":7,\"time\":1.250000,\"count\":3,"
			  "\"signature\":\"data-race:reader/writer\","
			  "\"title\":\"BUG: KCSAN: data-race in reader / writer\","
			  "\"kind\":\"data-race\",\"guest\":\"symtest.elf\",\"mode\":\"soft\","
			  "\"value\":{\"old\":\"0x2a\",\"new\":\"0x2b\"},\"sides\":[");
	CHECK_CONTAINS(
		j, "{\"access\":\"write\",\"access_bits\":1,\"addr\":\"0x403000\",\"size\":4,"
		   "\"cpu\":1,\"context\":\"task\",\"task\":3,\"mechanism\":\"soft-watchpoint\","
		   "\"ip\":\"0x401092\",\"ip_after\":false,"
		   "\"ret\":[\"0x4010c9\",\"0x401110\",\"0x401156\"],\"dropped\":2,");
	CHECK_CONTAINS(
		j, "{\"access\":\"read\",\"access_bits\":0,\"addr\":\"0x403000\",\"size\":4,"
		   "\"cpu\":0,\"context\":\"interrupt\",\"mechanism\":\"debug-register\","
		   "\"ip\":\"0x4010ee\",\"ip_after\":true,\"ret\":[\"0x40114f\"],\"dropped\":0,");
	CHECK_CONTAINS(j, "{\"pc\":\"0x401110\",\"func\":\"writer\",\"inline\":false,"
			  "\"symbol\":\"writer\",\"off\":16,\"size\":30,"
			  "\"file\":\"tests/watch/symtest.c\","
			  "\"full_file\":\"tests/watch/symtest.c\",\"line\":108,\"col\":2}");
	free(j);
	/* The checker itself must be able to say no. */
	CHECK(!json_line_ok("{\"a\":1,}\n"));
	CHECK(!json_line_ok("{\"a\":\"\x01\"}\n"));
	CHECK(!json_line_ok("{\"a\":1}\n{}\n"));
}

static void test_json_escape(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	report_json_string(f, "a\"b\\c\nd\x7f");
	fputc(' ', f);
	report_json_string(f, NULL);
	fclose(f);
	CHECK(buf && strcmp(buf, "\"a\\\"b\\\\c\\u000ad\\u007f\" null") == 0);
	free(buf);
}

static void test_print_stack(void)
{
	static const uint64_t pcs[] = { 0x40101e, 0x40103c, 0x40105c };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	report_print_stack(f, sym, pcs, 3, "csan-vmm:   ");
	fclose(f);
	check_text_eq(buf, "csan-vmm:   hdr_store tests/watch/symtest-inline.h:10 [inline]\n"
			   "csan-vmm:   mid_twice tests/watch/symtest.c:18 [inline]\n"
			   "csan-vmm:   leaf+0xe/0x20 tests/watch/symtest.c:26\n"
			   "csan-vmm:   call_leaf tests/watch/symtest.c:32 [inline]\n"
			   "csan-vmm:   mid+0xc/0x17 tests/watch/symtest.c:37\n"
			   "csan-vmm:   top+0xc/0x14 tests/watch/symtest.c:45\n");
	free(buf);
}

static void test_access_names(void)
{
	CHECK(strcmp(report_access_name(0), "read") == 0);
	CHECK(strcmp(report_access_name(CSAN_ACCESS_ATOMIC), "read (marked)") == 0);
	CHECK(strcmp(report_access_name(CSAN_ACCESS_WRITE | CSAN_ACCESS_COMPOUND), "read-write") ==
	      0);
	CHECK(strcmp(report_access_name(CSAN_ACCESS_WRITE | CSAN_ACCESS_ATOMIC |
					CSAN_ACCESS_SCOPED),
		     "write (marked, scoped)") == 0);
	CHECK(strcmp(report_access_name(CSAN_ACCESS_ASSERT), "assert no writes") == 0);
	CHECK(report_access_name(CSAN_ACCESS_COMPOUND) == NULL);
	CHECK(report_access_name(CSAN_ACCESS_ASSERT | CSAN_ACCESS_ATOMIC) == NULL);
	CHECK(report_access_name(0x20) == NULL);
	CHECK(strcmp(report_mech_name(99), "?") == 0);
}

int main(void)
{
	char why[512];
	int err = sym_open(symtest_path(), &sym, why, sizeof(why));

	CHECK_EQ_U64(err, 0);
	if (err) {
		fprintf(stderr, "test-report: %s\n", why);
		return check_exit_status("test-report");
	}
	test_data_race_text();
	test_title_sorted();
	test_assert();
	test_unknown_origin();
	test_values();
	test_runtime_frames();
	test_inline_and_unknown_frames();
	test_json();
	test_json_escape();
	test_print_stack();
	test_access_names();
	sym_close(sym);
	return check_exit_status("test-report");
}
