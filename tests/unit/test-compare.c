/* test-compare.c: the --compare table and JSON from synthetic runs, and the status line text. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "csan/abi.h"
#include "vmm/run/compare_table.h"
#include "vmm/run/compare_totals.h"
#include "vmm/base/exit_status.h"
#include "vmm/console/status_line.h"
#include "watch/report_log.h"
#include "check.h"
#include "../watch/json-check.h"

#define SOFT_BIT (1u << CSAN_MECH_SOFT_WATCH)
#define HW_BIT	 (1u << CSAN_MECH_HW_DEBUGREG)

/* What a stream printed, as a string the caller frees. */
static char *capture(const struct compare_table *t, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (json)
		compare_table_json(t, f);
	else
		compare_table_print(t, f);
	fclose(f);
	return buf;
}

static void add(struct compare_table *t, size_t scen, enum compare_mode m, const char *sig,
		const char *title, uint64_t count, double first, unsigned other)
{
	struct report_log_race r = {
		.signature = sig,
		.title = title,
		.count = count,
		.first_seen = first,
		.other_mechanisms = other,
		.mechanisms = other | SOFT_BIT,
	};

	CHECK_EQ_U64(compare_table_add_race(t, scen, m, &r), 0);
}

static void set_run(struct compare_table *t, size_t scen, enum compare_mode m, int status,
		    double wall, const char *line, uint64_t reports)
{
	struct compare_run *r = &t->scenarios[scen].run[m];

	r->ran = true;
	r->status = status;
	r->wall_s = wall;
	r->reports = reports;
	CHECK_EQ_U64(compare_parse_result_line(line, r), 0);
}

/* Two modes, one race both find, one only hw finds, one soft sees one-sided. */
static void fill_both(struct compare_table *t)
{
	*t = (struct compare_table){
		.seed = 42, .timeout_s = 120, .cpus = 2, .hw_available = true
	};
	CHECK_EQ_U64(compare_table_add_scenario(t, "counter-nolock"), 0);
	CHECK_EQ_U64(compare_table_add_scenario(t, "writer-assert-uninstr"), 1);
	add(t, 0, COMPARE_SOFT, "data-race:inc/inc", "BUG: KCSAN: data-race in inc / inc", 812,
	    0.412, SOFT_BIT);
	add(t, 0, COMPARE_HW, "data-race:inc/inc", "BUG: KCSAN: data-race in inc / inc", 799, 0.398,
	    HW_BIT);
	add(t, 1, COMPARE_SOFT, "unknown-origin:w", "BUG: KCSAN: data-race in w+0x4/0x10", 3, 2.5,
	    0);
	add(t, 1, COMPARE_HW, "assert-race:w/x", "BUG: KCSAN: assert: race in w / x", 12, 1.25,
	    HW_BIT | SOFT_BIT);
	set_run(t, 0, COMPARE_SOFT, EXIT_RACES, 3.2,
		"csan-result: scenario=counter-nolock status=pass reports=812 elapsed_ms=3000",
		812);
	set_run(t, 0, COMPARE_HW, EXIT_RACES, 9.6,
		"csan-result: scenario=counter-nolock status=pass reports=799 elapsed_ms=9000",
		799);
	set_run(t, 1, COMPARE_SOFT, EXIT_RACES, 1.0,
		"csan-result: scenario=writer-assert-uninstr status=pass elapsed_ms=1000", 3);
	set_run(t, 1, COMPARE_HW, EXIT_RACES, 2.0,
		"csan-result: scenario=writer-assert-uninstr status=fail elapsed_ms=1500", 12);
}

static void test_text_both_modes(void)
{
	struct compare_table t;
	char *s;

	fill_both(&t);
	CHECK_EQ_U64(t.nraces, 3); /* the shared signature merged into one row */
	s = capture(&t, false);
	CHECK_CONTAINS(s, "csan-vmm --compare: seed 42, timeout 120 s, 2 vCPUs, 2 scenarios\n");
	CHECK(!strstr(s, "hw mode not run"));
	CHECK_CONTAINS(s,
		       "  scenario                 soft     first  seen by                         "
		       "    hw     first  seen by                         race\n");
	CHECK_CONTAINS(
		s, "  counter-nolock            812    0.412s  soft-watchpoint                 "
		   "   799    0.398s  debug-register                  data-race in inc / inc\n");
	CHECK_CONTAINS(
		s, "  writer-assert-uninstr       3    2.500s  unseen                          "
		   "     -         -  -                               data-race in w+0x4/0x10\n");
	CHECK_CONTAINS(s,
		       "  writer-assert-uninstr       -         -  -                               "
		       "    12    1.250s  soft-watchpoint+debug-register  assert: race in w / x\n");
	CHECK_CONTAINS(s,
		       "  counter-nolock            1  pass        3.20s      3.00s     1  pass    "
		       "    9.60s      9.00s     3.00x\n");
	CHECK_CONTAINS(s,
		       "  writer-assert-uninstr     1  pass        1.00s      1.00s     1  fail    "
		       "    2.00s      1.50s     2.00x\n");
	CHECK_CONTAINS(s,
		       "totals: soft: 2 distinct races, 815 reports, wall 4.20 s, guest 4.00 s\n");
	CHECK_CONTAINS(
		s, "        hw:   2 distinct races, 811 reports, wall 11.60 s, guest 10.50 s\n");
	CHECK_CONTAINS(s, "        found by both 1, soft only 1, hw only 1; hw/soft slowdown 2.76x "
			  "wall, 2.62x guest\n");
	CHECK_EQ_U64(compare_exit_status(&t), EXIT_RACES);
	free(s);
	compare_table_free(&t);
}

static void test_json_both_modes(void)
{
	struct compare_table t;
	char *s;

	fill_both(&t);
	s = capture(&t, true);
	/* One object, spread over lines: json_line_ok wants exactly one, then a newline. */
	CHECK(s && json_line_ok(s));
	CHECK_CONTAINS(s, "{\"type\":\"compare\",\"seed\":42,\"timeout_s\":120,\"cpus\":2,"
			  "\"hw_available\":true,\"hw_note\":null,");
	CHECK_CONTAINS(s, "{\"scenario\":\"counter-nolock\",\"mode\":\"hw\",\"ran\":true,"
			  "\"exit_status\":1,\"result\":\"pass\",\"wall_s\":9.600000,"
			  "\"guest_s\":9.000000,\"reports\":799}");
	CHECK_CONTAINS(s,
		       "{\"scenario\":\"writer-assert-uninstr\",\"signature\":\"assert-race:w/x\","
		       "\"title\":\"BUG: KCSAN: assert: race in w / x\",\"soft\":null,"
		       "\"hw\":{\"count\":12,\"first_seen\":1.250000,"
		       "\"other_side_seen_by\":\"soft-watchpoint+debug-register\"}}");
	CHECK_CONTAINS(s, "\"soft\":{\"count\":3,\"first_seen\":2.500000,"
			  "\"other_side_seen_by\":\"unseen\"},\"hw\":null}");
	CHECK_CONTAINS(
		s, "\"totals\":{\"soft\":{\"distinct\":2,\"reports\":815,\"wall_s\":4.200000,"
		   "\"guest_s\":4.000000},\"hw\":{\"distinct\":2,\"reports\":811,"
		   "\"wall_s\":11.600000,\"guest_s\":10.500000},\"both\":1,\"both_one_sided\":0,"
		   "\"soft_only\":1,"
		   "\"hw_only\":1,\"slowdown_wall\":2.761905,\"slowdown_guest\":2.625000}");
	CHECK_CONTAINS(s, ",\n\"exit_status\":1}\n");
	free(s);
	compare_table_free(&t);
}

/* Soft's one-sided report and hw's two-sided one of the same function: one race. */
static void test_pair_one_sided(void)
{
	struct compare_table t;
	char *s, *j;

	fill_both(&t);
	CHECK_EQ_U64(compare_table_pair_one_sided(&t), 0);
	CHECK_EQ_U64(t.nraces, 2);
	s = capture(&t, false);
	j = capture(&t, true);
	CHECK_CONTAINS(s,
		       "  writer-assert-uninstr       3    2.500s  unseen                          "
		       "    12    1.250s  soft-watchpoint+debug-register  assert: race in w / x\n");
	CHECK(!strstr(s, "w+0x4/0x10"));
	CHECK_CONTAINS(s, "        found by both 2 (1 of them one-sided in one mode), soft only 0, "
			  "hw only 0;");
	CHECK(j && json_line_ok(j));
	CHECK_CONTAINS(j,
		       "{\"scenario\":\"writer-assert-uninstr\",\"signature\":\"assert-race:w/x\","
		       "\"title\":\"BUG: KCSAN: assert: race in w / x\",\"soft\":{\"count\":3,"
		       "\"first_seen\":2.500000,\"other_side_seen_by\":\"unseen\","
		       "\"reported_as\":\"unknown-origin:w\"},\"hw\":{\"count\":12,");
	CHECK_CONTAINS(j, "\"both\":2,\"both_one_sided\":1,\"soft_only\":0,\"hw_only\":0,");
	free(s);
	free(j);
	compare_table_free(&t);

	/* w raced with two functions in hw mode: which one soft saw is unknown. */
	fill_both(&t);
	add(&t, 1, COMPARE_HW, "data-race:v/w", "BUG: KCSAN: data-race in v / w", 2, 1.5, HW_BIT);
	CHECK_EQ_U64(compare_table_pair_one_sided(&t), 0);
	CHECK_EQ_U64(t.nraces, 4);
	s = capture(&t, false);
	CHECK_CONTAINS(s, "found by both 1, soft only 1, hw only 2;");
	free(s);
	compare_table_free(&t);

	/* Both modes saw it one-sided: it stays a row of its own, found by both. */
	fill_both(&t);
	add(&t, 1, COMPARE_HW, "unknown-origin:w", "BUG: KCSAN: data-race in w+0x4/0x10", 1, 1.75,
	    0);
	CHECK_EQ_U64(compare_table_pair_one_sided(&t), 0);
	CHECK_EQ_U64(t.nraces, 3);
	s = capture(&t, false);
	CHECK_CONTAINS(s, "found by both 2, soft only 0, hw only 1;");
	free(s);
	compare_table_free(&t);

	/* A name that only starts like w's is another function. */
	fill_both(&t);
	free(t.races[2].signature);
	t.races[2].signature = strdup("assert-race:wx/x");
	CHECK_EQ_U64(compare_table_pair_one_sided(&t), 0);
	CHECK_EQ_U64(t.nraces, 3);
	compare_table_free(&t);
}

/* No hw here: the probe's finding, the soft column only, no slowdown. */
static void test_soft_only(void)
{
	struct compare_table t = { .seed = 1, .timeout_s = 0, .cpus = 1 };
	char *s, *j;

	snprintf(t.hw_note, sizeof(t.hw_note), "data watchpoints do not fire (probe said so)");
	CHECK_EQ_U64(compare_table_add_scenario(&t, "lock-ok"), 0);
	set_run(&t, 0, COMPARE_SOFT, EXIT_CLEAN, 0.5,
		"csan-result: scenario=lock-ok status=pass reports=0 elapsed_ms=400", 0);
	s = capture(&t, false);
	j = capture(&t, true);
	CHECK_CONTAINS(s, "1 vCPU, 1 scenario\n");
	CHECK_CONTAINS(s, "hw mode not run: data watchpoints do not fire (probe said so)\n");
	CHECK_CONTAINS(s, "  scenario    soft     first  seen by  race\n");
	CHECK_CONTAINS(s, "  -         (no races reported in any mode)\n");
	CHECK_CONTAINS(s, "  scenario  soft  result       wall      guest\n");
	CHECK_CONTAINS(s, "  lock-ok      0  pass        0.50s      0.40s\n");
	CHECK_CONTAINS(s, "totals: soft: 0 distinct races, 0 reports, wall 0.50 s, guest 0.40 s\n");
	CHECK(!strstr(s, " hw "));
	CHECK(!strstr(s, "slowdown"));
	CHECK(j && json_line_ok(j));
	CHECK_CONTAINS(j, "\"hw_available\":false,\"hw_note\":\"data watchpoints do not fire "
			  "(probe said so)\"");
	CHECK(!strstr(j, "\"mode\":\"hw\""));
	CHECK_CONTAINS(j, "\"races\":[]");
	CHECK_CONTAINS(j, "\"hw\":null,\"both\":null,\"both_one_sided\":null");
	CHECK_EQ_U64(compare_exit_status(&t), EXIT_CLEAN);
	free(s);
	free(j);
	compare_table_free(&t);
}

/*
 * The worst run decides, as in one run: interrupted, usage/host error,
 * crash, timeout, failed workload, then races.
 */
static void test_exit_status(void)
{
	struct compare_table t = { .hw_available = true };

	compare_table_add_scenario(&t, "a");
	t.scenarios[0].run[COMPARE_SOFT] =
		(struct compare_run){ .ran = true, .status = EXIT_CLEAN };
	t.scenarios[0].run[COMPARE_HW] = (struct compare_run){ .ran = true, .status = EXIT_CLEAN };
	CHECK_EQ_U64(compare_exit_status(&t), EXIT_CLEAN);
	/* Races in one mode only: the comparison found races. */
	t.scenarios[0].run[COMPARE_HW] =
		(struct compare_run){ .ran = true, .status = EXIT_RACES, .reports = 2 };
	CHECK_EQ_U64(compare_exit_status(&t), EXIT_RACES);
	/* A failed workload in one mode wins over races in the other. */
	t.scenarios[0].run[COMPARE_SOFT].status = EXIT_WORKLOAD_FAILED;
	CHECK_EQ_U64(compare_exit_status(&t), EXIT_WORKLOAD_FAILED);
	/* A timeout wins over a failed workload. */
	t.scenarios[0].run[COMPARE_HW].status = EXIT_TIMEOUT;
	CHECK_EQ_U64(compare_exit_status(&t), EXIT_TIMEOUT);
	/* A crash with races still counts as a crash, and wins over a timeout. */
	t.scenarios[0].run[COMPARE_SOFT] =
		(struct compare_run){ .ran = true, .status = EXIT_CRASH, .reports = 4 };
	CHECK_EQ_U64(compare_exit_status(&t), EXIT_CRASH);
	t.scenarios[0].run[COMPARE_SOFT].status = EXIT_USAGE;
	CHECK_EQ_U64(compare_exit_status(&t), EXIT_USAGE);
	t.scenarios[0].run[COMPARE_HW].status = EXIT_INTERRUPTED;
	CHECK_EQ_U64(compare_exit_status(&t), EXIT_INTERRUPTED);
	/* A mode that was not run cannot decide anything. */
	t.hw_available = false;
	t.scenarios[0].run[COMPARE_SOFT].status = EXIT_RACES;
	CHECK_EQ_U64(compare_exit_status(&t), EXIT_RACES);
	/* A run that ended 0 but whose reports the table shows: races. */
	t.scenarios[0].run[COMPARE_SOFT].status = EXIT_CLEAN;
	CHECK_EQ_U64(compare_exit_status(&t), EXIT_RACES);
	compare_table_free(&t);
}

/* A sampling run's race: @count reports, @sampled of them the sampler's. */
static void add_sampled(struct compare_table *t, size_t scen, const char *sig, const char *title,
			uint64_t count, uint64_t sampled, double first, unsigned other)
{
	struct report_log_race r = {
		.signature = sig,
		.title = title,
		.count = count,
		.first_seen = 0.001, /* the kernel's own report came first: not sampling's time */
		.other_mechanisms = SOFT_BIT | other,
		.sampled_count = sampled,
		.sampled_first_seen = first,
		.sampled_other_mechanisms = other,
	};

	CHECK_EQ_U64(compare_table_add_race(t, scen, COMPARE_SAMPLE, &r), 0);
}

/* A Linux guest's run: no result line. */
static void set_linux_run(struct compare_table *t, enum compare_mode m, double wall,
			  uint64_t reports)
{
	struct compare_run *r = &t->scenarios[0].run[m];

	r->ran = true;
	r->status = EXIT_RACES;
	r->wall_s = wall;
	r->reports = reports;
}

#define DR_BIT (1u << CSAN_MECH_HW_DEBUGREG)

/*
 * The KCSAN test kernel in soft, hw and sample mode (as tests/linux/
 * kunit-sample-compare.sh runs it): one race all three see; one soft
 * sees one-sided (unknown origin) and hw and sampling name with both
 * sides; one only sampling sees, one-sided; one KCSAN itself reports in
 * every run, sampling never.
 */
static void fill_three(struct compare_table *t)
{
	*t = (struct compare_table){ .seed = 26,
				     .timeout_s = 600,
				     .cpus = 4,
				     .hw_available = true,
				     .modes = COMPARE_ALL_MODES };
	CHECK_EQ_U64(compare_table_add_scenario(t, NULL), 0);
	add(t, 0, COMPARE_SOFT, "data-race:rmw/rmw", "BUG: KCSAN: data-race in rmw / rmw", 5, 2.0,
	    SOFT_BIT);
	add(t, 0, COMPARE_SOFT, "unknown-origin:r", "BUG: KCSAN: data-race in r+0x8/0x20", 3, 4.0,
	    0);
	add(t, 0, COMPARE_SOFT, "data-race:a/b", "BUG: KCSAN: data-race in a / b", 4, 1.0,
	    SOFT_BIT);
	add(t, 0, COMPARE_HW, "data-race:rmw/rmw", "BUG: KCSAN: data-race in rmw / rmw", 6, 2.5,
	    SOFT_BIT | HW_BIT);
	add(t, 0, COMPARE_HW, "data-race:r/u", "BUG: KCSAN: data-race in r / u", 4, 4.5, HW_BIT);
	add(t, 0, COMPARE_HW, "data-race:a/b", "BUG: KCSAN: data-race in a / b", 2, 1.5, SOFT_BIT);
	add_sampled(t, 0, "data-race:rmw/rmw", "BUG: KCSAN: data-race in rmw / rmw", 7, 2, 3.0,
		    DR_BIT);
	add_sampled(t, 0, "data-race:r/u", "BUG: KCSAN: data-race in r / u", 2, 2, 5.0, DR_BIT);
	add_sampled(t, 0, "unknown-origin:x", "BUG: KCSAN: data-race in x+0x4/0x10", 1, 1, 6.0, 0);
	add_sampled(t, 0, "data-race:a/b", "BUG: KCSAN: data-race in a / b", 4, 0, 1.0, 0);
	set_linux_run(t, COMPARE_SOFT, 10.0, 12);
	set_linux_run(t, COMPARE_HW, 20.0, 12);
	set_linux_run(t, COMPARE_SAMPLE, 15.0, 14);
}

static void test_three_modes(void)
{
	struct compare_table t;
	char *s, *j;

	fill_three(&t);
	/* KCSAN's own a/b reports of the sampling run are no row's sample hit. */
	CHECK_EQ_U64(t.nraces, 5);
	CHECK_EQ_U64(t.scenarios[0].run[COMPARE_SAMPLE].own_reports, 5 + 4);
	CHECK_EQ_U64(compare_table_pair_one_sided(&t), 0);
	CHECK_EQ_U64(t.nraces, 4);
	s = capture(&t, false);
	j = capture(&t, true);
	CHECK(!strstr(s, "not run"));
	CHECK_CONTAINS(s, "  scenario     soft     first  seen by                         "
			  "    hw     first  seen by                         "
			  "sample     first  seen by                         race\n");
	/* Sampling's own count and time, and what it saw the other side with: not KCSAN's. */
	CHECK_CONTAINS(
		s, "  (default)       5    2.000s  soft-watchpoint                 "
		   "     6    2.500s  soft-watchpoint+debug-register  "
		   "     2    3.000s  debug-register                  data-race in rmw / rmw\n");
	CHECK_CONTAINS(s, "  (default)       4    1.000s  soft-watchpoint                 "
			  "     2    1.500s  soft-watchpoint                 "
			  "     -         -  -                               data-race in a / b\n");
	/* soft's one-sided report under the two-sided title hw and sampling gave. */
	CHECK_CONTAINS(s, "  (default)       3    4.000s  unseen                          "
			  "     4    4.500s  debug-register                  "
			  "     2    5.000s  debug-register                  data-race in r / u\n");
	CHECK(!strstr(s, "r+0x8/0x20"));
	/* Found by sampling only, one-sided. */
	CHECK_CONTAINS(
		s, "  (default)       -         -  -                               "
		   "     -         -  -                               "
		   "     1    6.000s  unseen                          data-race in x+0x4/0x10\n");
	CHECK_CONTAINS(s,
		       "  scenario   soft  result       wall      guest    hw  result       wall"
		       "      guest  sample  result       wall      guest  hw/soft  sample/soft\n");
	CHECK_CONTAINS(s,
		       "  (default)     1  -          10.00s          -     1  -          20.00s"
		       "          -     1  -          15.00s          -    2.00x        1.50x\n");
	CHECK_CONTAINS(s, "totals: soft:   3 distinct races, 12 reports, wall 10.00 s\n");
	CHECK_CONTAINS(s, "        hw:     3 distinct races, 12 reports, wall 20.00 s\n");
	CHECK_CONTAINS(s, "        sample: 3 distinct races, 5 reports (and 9 by the kernel's own "
			  "race detector, not counted), wall 15.00 s\n");
	CHECK_CONTAINS(s,
		       "        found by soft+hw+sample 2, soft+hw 1, soft+sample 0, hw+sample 0, "
		       "soft only 0, hw only 0, sample only 1 (1 of them one-sided in some mode); "
		       "hw/soft slowdown 2.00x wall; sample/soft slowdown 1.50x wall\n");
	CHECK(j && json_line_ok(j));
	CHECK_CONTAINS(j, "\"hw_note\":null,\"modes\":[\"soft\",\"hw\",\"sample\"],\n");
	CHECK_CONTAINS(j, "{\"scenario\":\"(default)\",\"mode\":\"sample\",\"ran\":true,"
			  "\"exit_status\":1,\"result\":null,\"wall_s\":15.000000,\"guest_s\":null,"
			  "\"reports\":14,\"own_reports\":9}");
	CHECK_CONTAINS(j, "\"signature\":\"data-race:a/b\",\"title\":\"BUG: KCSAN: data-race in "
			  "a / b\",\"soft\":{\"count\":4,\"first_seen\":1.000000,"
			  "\"other_side_seen_by\":\"soft-watchpoint\"},\"hw\":{\"count\":2,"
			  "\"first_seen\":1.500000,\"other_side_seen_by\":\"soft-watchpoint\"},"
			  "\"sample\":null}");
	CHECK_CONTAINS(j, "\"sample\":{\"count\":2,\"first_seen\":3.000000,"
			  "\"other_side_seen_by\":\"debug-register\"}}");
	CHECK_CONTAINS(j,
		       "\"sample\":{\"distinct\":3,\"reports\":5,\"own_reports\":9,"
		       "\"wall_s\":15.000000,\"guest_s\":null},\"found_by\":{\"soft+hw+sample\":2,"
		       "\"soft+hw\":1,\"soft+sample\":0,\"hw+sample\":0,\"soft\":0,\"hw\":0,"
		       "\"sample\":1},\"one_sided\":1,\"slowdown\":{\"hw/soft\":{\"wall\":2.000000,"
		       "\"guest\":null},\"sample/soft\":{\"wall\":1.500000,\"guest\":null}}}");
	CHECK(!strstr(j, "\"both\""));
	CHECK_EQ_U64(compare_exit_status(&t), EXIT_RACES);
	free(s);
	free(j);
	compare_table_free(&t);

	/* No data watchpoints here: soft alone, and both modes that need them said left out. */
	fill_three(&t);
	t.hw_available = false;
	snprintf(t.hw_note, sizeof(t.hw_note), "PVM");
	s = capture(&t, false);
	j = capture(&t, true);
	CHECK_CONTAINS(s, "hw and sample modes not run: PVM\n");
	CHECK_CONTAINS(s, "  scenario     soft     first  seen by          race\n");
	CHECK_CONTAINS(s, "totals: soft: 3 distinct races, 12 reports, wall 10.00 s\n");
	CHECK(!strstr(s, "sample:") && !strstr(s, "found by") && !strstr(s, "slowdown"));
	CHECK(j && json_line_ok(j));
	CHECK(!strstr(j, "\"mode\":\"sample\""));
	CHECK_CONTAINS(j, "\"hw\":null,\"sample\":null,\"found_by\":{\"soft\":3},\"one_sided\":0,"
			  "\"slowdown\":{}}");
	free(s);
	free(j);
	compare_table_free(&t);
}

/* soft against sampling alone: the names, not "both" or "slowdown". */
static void test_soft_sample(void)
{
	struct compare_table t;
	char *s;

	fill_three(&t);
	t.modes = COMPARE_BIT(COMPARE_SOFT) | COMPARE_BIT(COMPARE_SAMPLE);
	CHECK_EQ_U64(compare_table_pair_one_sided(&t), 0);
	s = capture(&t, false);
	CHECK_CONTAINS(s,
		       "  scenario   soft  result       wall      guest  sample  result       wall"
		       "      guest  sample/soft\n");
	CHECK_CONTAINS(s, "totals: soft:   ");
	CHECK_CONTAINS(s, "        found by soft+sample 2, soft only 1, sample only 1 (1 of them "
			  "one-sided in some mode); sample/soft slowdown 1.50x wall\n");
	CHECK(!strstr(s, " hw "));
	free(s);
	compare_table_free(&t);
}

/* The mode lists --compare=MODES takes, and the order sets are walked in. */
static void test_modes(void)
{
	unsigned m = 99, set = 0, order[8], n = 0;
	char buf[32];

	CHECK_EQ_U64(compare_modes_parse("sample,soft", &m), 0);
	CHECK_EQ_U64(m, COMPARE_BIT(COMPARE_SOFT) | COMPARE_BIT(COMPARE_SAMPLE));
	CHECK(strcmp(compare_modes_format(m, ",", buf, sizeof(buf)), "soft,sample") == 0);
	CHECK(strcmp(compare_modes_format(COMPARE_ALL_MODES, " and ", buf, sizeof(buf)),
		     "soft and hw and sample") == 0);
	CHECK_EQ_U64(compare_modes_parse("soft,hw,sample", &m), 0);
	CHECK_EQ_U64(m, COMPARE_ALL_MODES);
	m = 99;
	CHECK_EQ_U64(compare_modes_parse("", &m), (uint64_t)-EINVAL);
	CHECK_EQ_U64(compare_modes_parse("hw,", &m), (uint64_t)-EINVAL);
	CHECK_EQ_U64(compare_modes_parse("hw,hw", &m), (uint64_t)-EINVAL);
	CHECK_EQ_U64(compare_modes_parse("HW", &m), (uint64_t)-EINVAL);
	CHECK_EQ_U64(compare_modes_parse("samples", &m), (uint64_t)-EINVAL);
	CHECK_EQ_U64(m, 99);
	CHECK_EQ_U64(compare_modes_first(COMPARE_BIT(COMPARE_HW) | COMPARE_BIT(COMPARE_SAMPLE)),
		     COMPARE_HW);
	while (compare_subsets_next(COMPARE_ALL_MODES, &set) && n < 8)
		order[n++] = set;
	CHECK_EQ_U64(n, 7);
	CHECK(order[0] == 7 && order[1] == 3 && order[2] == 5 && order[3] == 6 && order[4] == 1 &&
	      order[5] == 2 && order[6] == 4);
	set = 0;
	CHECK(!compare_subsets_next(0, &set));
}

/* A one-sided row pairs only with a row the modes that saw it one-sided did not report. */
static void test_pair_three(void)
{
	struct compare_table t;

	/* soft saw w one-sided and also w/v two-sided: it saw two things, no pairing. */
	t = (struct compare_table){ .hw_available = true, .modes = COMPARE_ALL_MODES };
	compare_table_add_scenario(&t, "s");
	add(&t, 0, COMPARE_SOFT, "unknown-origin:w", "w+0x1/0x2", 1, 1.0, 0);
	add(&t, 0, COMPARE_SOFT, "data-race:v/w", "v / w", 1, 1.0, SOFT_BIT);
	add(&t, 0, COMPARE_HW, "data-race:v/w", "v / w", 1, 1.0, HW_BIT);
	CHECK_EQ_U64(compare_table_pair_one_sided(&t), 0);
	CHECK_EQ_U64(t.nraces, 2);
	compare_table_free(&t);
	/* soft and hw both saw it one-sided, sampling named both sides: one race. */
	t = (struct compare_table){ .hw_available = true, .modes = COMPARE_ALL_MODES };
	compare_table_add_scenario(&t, "s");
	add(&t, 0, COMPARE_SOFT, "unknown-origin:w", "w+0x1/0x2", 2, 1.0, 0);
	add(&t, 0, COMPARE_HW, "unknown-origin:w", "w+0x1/0x2", 3, 1.0, 0);
	add_sampled(&t, 0, "data-race:v/w", "v / w", 1, 1, 2.0, DR_BIT);
	CHECK_EQ_U64(compare_table_pair_one_sided(&t), 0);
	CHECK_EQ_U64(t.nraces, 1);
	CHECK(strcmp(t.races[0].signature, "data-race:v/w") == 0);
	CHECK_EQ_U64(t.races[0].hit[COMPARE_SOFT].count, 2);
	CHECK_EQ_U64(t.races[0].hit[COMPARE_HW].count, 3);
	CHECK(t.races[0].hit[COMPARE_HW].reported_as &&
	      strcmp(t.races[0].hit[COMPARE_HW].reported_as, "unknown-origin:w") == 0);
	CHECK(!t.races[0].hit[COMPARE_SAMPLE].reported_as);
	CHECK_EQ_U64(compare_found_one_sided(&t), 1);
	compare_table_free(&t);
}

static void test_result_line(void)
{
	struct compare_run r = { 0 };

	CHECK_EQ_U64(compare_parse_result_line("", &r), (uint64_t)-EINVAL);
	CHECK_EQ_U64(compare_parse_result_line("csan-guest: status=pass elapsed_ms=5", &r),
		     (uint64_t)-EINVAL);
	CHECK(!r.has_guest_ms && !r.result[0]);
	/* first_report_ms= must not be taken for elapsed_ms=, nor xstatus= for status=. */
	CHECK_EQ_U64(compare_parse_result_line("csan-result: scenario=x xstatus=odd status=fail "
					       "first_report_ms=7 elapsed_ms=1234 iterations=9",
					       &r),
		     0);
	CHECK(strcmp(r.result, "fail") == 0);
	CHECK(r.has_guest_ms);
	CHECK_EQ_U64(r.guest_ms, 1234);
	r = (struct compare_run){ 0 };
	CHECK_EQ_U64(
		compare_parse_result_line("csan-result: scenario=x status=pass elapsed_ms=12x", &r),
		0);
	CHECK(!r.has_guest_ms);
}

static void test_status_line(void)
{
	struct status_sample prev = { .ms = 1000, .setup_watchpoints = 100, .hw_armed = 50 };
	struct status_sample now = {
		.ms = 1500, .setup_watchpoints = 600, .hw_armed = 300, .races = 1
	};
	char buf[160];

	status_line_format(buf, sizeof(buf), &now, &prev, false);
	CHECK(strcmp(buf, "csan-vmm: 1.5 s, 1000 watchpoints/s, 1 race") == 0);
	now.races = 3;
	status_line_format(buf, sizeof(buf), &now, &prev, true);
	CHECK(strcmp(buf, "csan-vmm: 1.5 s, 1000 watchpoints/s, 500 hw arms/s, 3 races") == 0);
	/* No time between samples: no rate rather than a division by zero. */
	status_line_format(buf, sizeof(buf), &prev, &prev, false);
	CHECK(strcmp(buf, "csan-vmm: 1.0 s, 0 watchpoints/s, 0 races") == 0);
}

int main(void)
{
	test_text_both_modes();
	test_json_both_modes();
	test_pair_one_sided();
	test_soft_only();
	test_exit_status();
	test_three_modes();
	test_soft_sample();
	test_modes();
	test_pair_three();
	test_result_line();
	test_status_line();
	return check_exit_status("test-compare");
}
