/* test-linux-findings.c: recorded Linux consoles through the Linux profile to the exit status. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmm/base/exit_status.h"
#include "vmm/guest/linux/linux_guest.h"
#include "vmm/guest/profile.h"
#include "vmm/kvm/vm.h"
#include "vmm/run/verdict.h"
#include "watch/report_log.h"
#include "watch/sym.h"
#include "check.h"

/*
 * The KCSAN KUnit suite's console as csan-vmm printed it in the emulated
 * host (3 cases missed their report windows on a loaded machine: 25
 * passed, 3 failed, 1 skipped, 22 KCSAN reports), and as QEMU TCG
 * printed it (28 passed, 1 skipped, 52 KCSAN reports).
 */
#define FAILED_CONSOLE TOP_SRCDIR "/tests/linux/csan-vmm-kunit-3-failed.txt"
#define PASSED_CONSOLE TOP_SRCDIR "/tests/linux/qemu-tcg-kunit.txt"

/*
 * Replay @path's first @max_lines lines (0: all), then @extra (NULL:
 * none), through the Linux profile's console path on a VM without KVM;
 * the run ends as @end.  Fills @f the way guest_run does and returns the
 * exit status; what the profile printed goes to @printed (@len bytes).
 */
static int replay(const char *path, unsigned max_lines, const char *extra, enum vm_end end,
		  struct verdict_facts *f, char *printed, size_t len)
{
	struct vm_config cfg = { 0 };
	struct vm *vm = vm_new(&cfg);
	char line[2048], why[128];
	FILE *in = fopen(path, "r"), *out = fmemopen(printed, len, "w");
	unsigned n = 0;
	int status;

	if (!vm || !in || !out || linux_state_attach(vm, why, sizeof(why))) {
		fprintf(stderr, "cannot replay %s\n", path);
		exit(99);
	}
	while ((!max_lines || n < max_lines) && fgets(line, sizeof(line), in)) {
		(void)linux_console_line(vm, line, strcspn(line, "\n"), NULL, 0);
		n++;
	}
	if (extra)
		(void)linux_console_line(vm, extra, strlen(extra), NULL, 0);
	*f = (struct verdict_facts){ .end = { .end = end } };
	guest_findings_init(&f->seen);
	linux_profile.summarize(vm, &f->seen, out);
	status = verdict_status(f);
	fclose(out);
	fclose(in);
	linux_profile.teardown(vm);
	vm_destroy(vm);
	return status;
}

/* A failed KUnit case is 5, and wins over the races KCSAN reported. */
static void test_failed_case(void)
{
	struct verdict_facts f;
	char printed[1024], line[256];
	int status = replay(FAILED_CONSOLE, 0, NULL, VM_END_EXIT, &f, printed, sizeof(printed));

	CHECK_EQ_U64(status, EXIT_WORKLOAD_FAILED);
	CHECK_EQ_U64(f.seen.kunit_suites, 1);
	CHECK_EQ_U64(f.seen.kunit_passed, 25);
	CHECK_EQ_U64(f.seen.kunit_failed, 3);
	CHECK_EQ_U64(f.seen.kunit_skipped, 1);
	CHECK_EQ_U64(f.seen.kunit_incomplete, 0);
	CHECK(!f.seen.crashed);
	/* No vmlinux here: KCSAN's reports are counted as Linux printed them. */
	CHECK_EQ_U64(verdict_races(&f), 22);
	CHECK_CONTAINS(printed, "linux kunit: kcsan: 25 passed, 3 failed, 1 skipped\n");
	CHECK_STREQ(verdict_line(line, sizeof(line), &f, status),
		    "exit status 5 (workload-failed): 22 race reports; workload: none; "
		    "KUnit: 25 passed, 3 failed, 1 skipped");
}

/* Every case passed: the races decide, 1. */
static void test_passed(void)
{
	struct verdict_facts f;
	char printed[1024];

	CHECK_EQ_U64(replay(PASSED_CONSOLE, 0, NULL, VM_END_EXIT, &f, printed, sizeof(printed)),
		     EXIT_RACES);
	CHECK_EQ_U64(f.seen.kunit_passed, 28);
	CHECK_EQ_U64(f.seen.kunit_failed, 0);
	CHECK_EQ_U64(f.seen.kunit_skipped, 1);
	CHECK_EQ_U64(verdict_races(&f), 52);
}

/*
 * The suite cut short (the console's first 300 lines: inside the suite,
 * test_basic already failed): a timeout is 4, a panic there 3, and a
 * kernel that rebooted with the suite unfinished failed its workload.
 */
static void test_cut_short(void)
{
	struct verdict_facts f;
	char printed[1024];

	CHECK_EQ_U64(
		replay(FAILED_CONSOLE, 300, NULL, VM_END_TIMEOUT, &f, printed, sizeof(printed)),
		EXIT_TIMEOUT);
	CHECK_EQ_U64(f.seen.kunit_incomplete, 1);
	CHECK_EQ_U64(f.seen.kunit_failed, 1);
	CHECK_CONTAINS(printed, "(incomplete: no result line for the suite)");
	CHECK_EQ_U64(replay(FAILED_CONSOLE, 300, "Kernel panic - not syncing: Oops", VM_END_TIMEOUT,
			    &f, printed, sizeof(printed)),
		     EXIT_CRASH);
	CHECK(f.seen.crashed);
	CHECK_CONTAINS(printed, "Linux panicked: Kernel panic - not syncing: Oops\n");
	CHECK_EQ_U64(replay(PASSED_CONSOLE, 300, NULL, VM_END_EXIT, &f, printed, sizeof(printed)),
		     EXIT_WORKLOAD_FAILED);
	CHECK_EQ_U64(f.seen.kunit_failed, 0);
	CHECK_EQ_U64(f.seen.kunit_incomplete, 1);
}

#define RULE  "=================================================================="
#define NOTE1 "[csan-vmm: KCSAN report #1 printed on stderr: data-race in mid / writer]"

/*
 * A console with a rule that opens no report, then a KCSAN report with
 * other CPUs' lines before its title and inside it, and what the profile
 * tells the console to do with each line: the report's block held and
 * dropped for one note once the report log printed it, everything else
 * shown (the lines that are not the report's in their place).
 */
static const struct {
	const char *line;
	enum console_verdict with_vmlinux;
} console[] = {
	{ "Linux version 6.1.0", CONSOLE_SHOW },
	/* A test prints a rule; no title in the next 8 lines: shown, in order. */
	{ RULE, CONSOLE_HOLD },
	{ "one", CONSOLE_HOLD_KEEP },
	{ "two", CONSOLE_HOLD_KEEP },
	{ "three", CONSOLE_HOLD_KEEP },
	{ "four", CONSOLE_HOLD_KEEP },
	{ "five", CONSOLE_HOLD_KEEP },
	{ "six", CONSOLE_HOLD_KEEP },
	{ "seven", CONSOLE_HOLD_KEEP },
	{ "eight", CONSOLE_SHOW },
	/* Two rules: the first opened nothing, the second may. */
	{ RULE, CONSOLE_HOLD },
	{ "[    4.000000] " RULE, CONSOLE_SHOW_THEN_HOLD },
	{ "    ok 1 test_other_cpu", CONSOLE_HOLD_KEEP },
	{ "[    4.000001] BUG: KCSAN: data-race in mid / writer", CONSOLE_HOLD },
	{ "[    4.000002] ", CONSOLE_HOLD },
	{ "[    4.000003] write to 0x0000000000403000 of 4 bytes by task 3 on cpu 1:",
	  CONSOLE_HOLD },
	{ "[    4.000004]  writer+0x10/0x20", CONSOLE_HOLD },
	{ "[    4.000005]  _start+0x36/0x38", CONSOLE_HOLD },
	{ "[    4.000006] ", CONSOLE_HOLD },
	{ "[    4.000007] read to 0x0000000000403000 of 4 bytes by interrupt on cpu 0:",
	  CONSOLE_HOLD },
	{ "    ok 2 test_inside", CONSOLE_HOLD_KEEP },
	{ "[    4.000008]  mid+0xc/0x20", CONSOLE_HOLD },
	{ "[    4.000010]  top+0xc/0x20", CONSOLE_HOLD },
	{ "[    4.000011] ", CONSOLE_HOLD },
	{ "[    4.000012] Reported by Kernel Concurrency Sanitizer on:", CONSOLE_HOLD },
	{ "[    4.000013] CPU: 0 PID: 0 Comm: swapper/0 Not tainted 6.1.0 #1", CONSOLE_HOLD },
	{ "[    4.000014] " RULE, CONSOLE_DROP },
	{ "after", CONSOLE_SHOW },
};

/* The verdicts above, with the test ELF as the vmlinux, and without one: every line shown. */
static void test_console_verdicts(void)
{
	struct vm_config cfg = { 0 };
	struct vm *vm = vm_new(&cfg);
	char *text = NULL, note[256], why[256], printed[1024];
	size_t tlen = 0, i;
	FILE *tf = open_memstream(&text, &tlen), *out = fmemopen(printed, sizeof(printed), "w");
	struct report_log_opts o = { .env = { .guest = "vmlinux", .mode = "soft" }, .text = tf };
	struct guest_findings f;
	enum console_verdict v;

	CHECK(vm && tf && out && linux_state_attach(vm, why, sizeof(why)) == 0);
	CHECK(sym_open(TOP_SRCDIR "/tests/watch/symtest.elf", &o.sym, why, sizeof(why)) == 0);
	CHECK(report_log_new(&o, &vm->reports) == 0);
	if (!vm || !tf || !out || !o.sym || !vm->reports)
		exit(99);
	vm->sym = o.sym;
	for (i = 0; i < sizeof(console) / sizeof(console[0]); i++) {
		note[0] = '\0';
		v = linux_console_line(vm, console[i].line, strlen(console[i].line), note,
				       sizeof(note));
		if (v != console[i].with_vmlinux)
			fprintf(stderr, "line %zu \"%s\": verdict %d\n", i, console[i].line, v);
		CHECK_EQ_U64(v, console[i].with_vmlinux);
		if (v == CONSOLE_DROP)
			CHECK_STREQ(note, NOTE1);
	}
	fflush(tf);
	CHECK_CONTAINS(text, "BUG: KCSAN: data-race in mid / writer\n");
	CHECK_EQ_U64(report_log_total(vm->reports), 1);
	linux_profile.teardown(vm);

	/* No vmlinux: the report log cannot take it; Linux's block is all there is. */
	vm->sym = NULL;
	CHECK(linux_state_attach(vm, why, sizeof(why)) == 0);
	for (i = 0; i < sizeof(console) / sizeof(console[0]); i++) {
		note[0] = '\0';
		v = linux_console_line(vm, console[i].line, strlen(console[i].line), note,
				       sizeof(note));
		CHECK_EQ_U64(v, CONSOLE_SHOW);
		CHECK_STREQ(note, "");
	}
	guest_findings_init(&f);
	linux_profile.summarize(vm, &f, out);
	CHECK_EQ_U64(f.races_unlogged, 1);
	CHECK_EQ_U64(report_log_total(vm->reports), 1);
	linux_profile.teardown(vm);
	report_log_free(vm->reports);
	vm->reports = NULL;
	sym_close(o.sym);
	vm_destroy(vm);
	fclose(out);
	fclose(tf);
	free(text);
}

int main(void)
{
	test_failed_case();
	test_passed();
	test_cut_short();
	test_console_verdicts();
	return check_exit_status("test-linux-findings");
}
