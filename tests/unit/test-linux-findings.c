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

int main(void)
{
	test_failed_case();
	test_passed();
	test_cut_short();
	return check_exit_status("test-linux-findings");
}
