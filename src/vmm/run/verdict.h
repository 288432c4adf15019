/* verdict.h: how a run ended, as one exit status, one closing line and one JSON record. */
#ifndef CSAN_VMM_VERDICT_H
#define CSAN_VMM_VERDICT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vmm/guest/profile.h"
#include "vmm/kvm/vm.h"

/* Everything the exit status of one run depends on, gathered after it. */
struct verdict_facts {
	/*
	 * How the run ended (vm_run).  Its guest_status is not read here:
	 * a profile that takes the guest's own exit status for the
	 * workload's says so in seen.workload_status.
	 */
	struct vm_outcome end;
	uint64_t races;		    /* race reports counted (report_log_total) */
	struct guest_findings seen; /* the profile's: crash, workload, KUnit */
};

/* verdict_races - every race report of the run: the log's and the profile's unlogged ones. */
uint64_t verdict_races(const struct verdict_facts *f);

/*
 * verdict_status - the exit status of a run with @f (exit_status.h), by
 * the first rule that holds:
 *   130  stopped by a signal;
 *   2    a host error under the guest;
 *   3    the guest crashed (the run ended in a fault, or the profile saw
 *        a crash: a panic that was still printing at the timeout is one);
 *   4    still running at --timeout;
 *   5    the workload failed: it reported a non-zero status, a KUnit case
 *        failed, or (the guest having ended by itself) a workload that was
 *        to report never did, or a KUnit suite never finished;
 *   1    races were reported (verdict_races);
 *   0    otherwise.
 * So a crash wins over a timeout (the hang followed the crash), both win
 * over the workload (it never finished: its failure or success says
 * little), and a failed workload wins over races (the run did not do
 * what it was meant to, so its races are not the whole story).  A quit
 * asked for by the user is judged as an end by the guest itself, except
 * that a workload or KUnit suite cut short by it is not a failure.
 */
int verdict_status(const struct verdict_facts *f);

/*
 * verdict_word - @status's one word ("clean", "races", "error", "crash",
 * "timeout", "workload-failed", "interrupted"; "unknown" for any other).
 */
const char *verdict_word(int status);

/* verdict_end_word - how a run ended, in a word: "exit", "timeout"... */
const char *verdict_end_word(enum vm_end end);

/*
 * verdict_line - the closing summary line (without "csan-vmm: " and the
 * newline) into @buf (@len bytes, truncated to fit):
 * "exit status 5 (workload-failed): 3 race reports; workload: exit
 * status 1; KUnit: 27 passed, 1 failed, 1 skipped".  Returns @buf.
 */
char *verdict_line(char *buf, size_t len, const struct verdict_facts *f, int status);

/*
 * verdict_json - the "exit" record of --report-json, one line on @out:
 * status, its word, how the run ended, the watch mode it started in
 * (@mode), the race reports, the workload's status (null: none) and
 * KUnit's counts (null: none).
 */
void verdict_json(FILE *out, const struct verdict_facts *f, int status, const char *mode);

/*
 * verdict_combine - the status of several runs together (--compare): the
 * more serious of @a and @b, in the order 130, 2, 3, 4, 5, 1, 0 (a status
 * not in the list counts as 2).
 */
int verdict_combine(int a, int b);

#endif /* CSAN_VMM_VERDICT_H */
