/* native.h: hosting the guest runtime in a Linux process: CPU threads and reports. */
#ifndef CSAN_NATIVE_NATIVE_H
#define CSAN_NATIVE_NATIVE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "watch/report_log.h"

/*
 * The runtime (src/guest/runtime/ with port-posix.c) built into a host
 * program: reports go through the same record the guest hands csan-vmm,
 * and are checked, symbolized (libdw, against the program's own ELF),
 * rate-limited and printed by src/watch/'s report log in-process.
 */

struct native_opts {
	const char *exe;      /* the ELF to symbolize against; NULL: /proc/self/exe */
	FILE *text;	      /* printed reports; NULL: stderr */
	unsigned interval_ms; /* the report log's rate limit (0: print every report) */
	/* The report log's clock (tests); NULL: CLOCK_MONOTONIC. */
	uint64_t (*now_ns)(void *ctx);
	void *now_ctx;
};

/*
 * native_open - open the symbols and the report log as @o says and route
 * the runtime's reports to them.  Returns 0, or a negative errno with the
 * reason in @why (@whylen bytes).
 */
int native_open(const struct native_opts *o, char *why, size_t whylen);

/* native_close - print the report log's summary (if @summary) and release it all. */
void native_close(bool summary);

/* native_log - the report log, for tests that count what was printed. */
struct report_log *native_log(void);

/* native_bad_reports - records the report log refused (always a runtime bug). */
uint64_t native_bad_reports(void);

/*
 * native_run_cpus - run @fn(@arg, cpu) on @ncpus threads at once, thread
 * i as CPU i (csan_posix_run_on_cpu), and wait for all.  Returns 0 or a
 * negative errno from pthread_create.
 */
int native_run_cpus(unsigned ncpus, void (*fn)(void *arg, unsigned cpu), void *arg);

#endif /* CSAN_NATIVE_NATIVE_H */
