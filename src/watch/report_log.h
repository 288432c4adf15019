/* report_log.h: every race report counted, repeats rate-limited, a summary at exit. */
#ifndef CSAN_WATCH_REPORT_LOG_H
#define CSAN_WATCH_REPORT_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "csan/abi.h"
#include "watch/report.h"

/* KCSAN's CONFIG_KCSAN_REPORT_ONCE_IN_MS default. */
#define REPORT_LOG_DEFAULT_INTERVAL_MS 3000u
/* Distinct races tracked one by one; reports beyond are still counted. */
#define REPORT_LOG_DEFAULT_MAX_RACES 1024u

struct report_log_opts {
	struct sym *sym;       /* the guest ELF's symbols */
	struct report_env env; /* guest image and watch mode, for the footer */
	FILE *text;	       /* printed reports and the summary; NULL: stderr */
	FILE *json;	       /* --report-json=FILE, one object per printed report; NULL: none */
	unsigned interval_ms;  /* a signature prints at most once per interval; 0: always */
	unsigned sym_flags;    /* report_symbolize's flags for this kind of guest */
	unsigned max_races;    /* 0: REPORT_LOG_DEFAULT_MAX_RACES */
	/* The clock, in ns; NULL: CLOCK_MONOTONIC.  Tests set their own. */
	uint64_t (*now_ns)(void *ctx);
	void *now_ctx;
	/*
	 * Called under the log's lock just before a report is printed on
	 * text, so whatever else draws on that terminal (the VMM's status
	 * line) can get out of the way; NULL: nothing to do.
	 */
	void (*before_print)(void);
};

/* Watch modes a race was reported in, as report_log_race.modes bits. */
#define REPORT_LOG_MODE_SOFT   0x1u
#define REPORT_LOG_MODE_HW     0x2u
#define REPORT_LOG_MODE_SAMPLE 0x4u /* --watch=sample: the host's code breakpoints */

/* One distinct race as report_log_races() hands it out (read-only). */
struct report_log_race {
	const char *signature;	   /* "data-race:a/b" */
	const char *title;	   /* "BUG: KCSAN: data-race in a / b" */
	uint64_t count;		   /* reports with this signature */
	double first_seen;	   /* seconds from the log's start to its first report */
	unsigned mechanisms;	   /* bit (1 << CSAN_MECH_*) per mechanism any side had */
	unsigned other_mechanisms; /* the same for side[0], the access that ran into the
				      watch; 0 when only one-sided (unknown origin) reports came */
	unsigned modes;		   /* REPORT_LOG_MODE_* bits */
	/*
	 * Of those, the reports a host sampling breakpoint took part in
	 * (a side with CSAN_MECH_SAMPLING), as above; count 0: none.  What
	 * --compare's sample column shows: the rest of a sampling run's
	 * reports are the kernel's own detector's.
	 */
	uint64_t sampled_count;
	double sampled_first_seen;
	unsigned sampled_other_mechanisms;
};

struct report_log;

/*
 * report_log_new - a report log printing as @opts says (copied; the FILEs
 * and sym stay the caller's).  Time 0 of first-seen times is now.
 * Returns 0 with the log in @out, or -ENOMEM.
 */
int report_log_new(const struct report_log_opts *opts, struct report_log **out);

/* report_log_free - release @log (without printing); NULL is a no-op. */
void report_log_free(struct report_log *log);

/*
 * report_log_submit - take one report from a vCPU thread: check it (the
 * guest is not trusted), symbolize it, count it under its signature, and
 * print it (text, and JSON when asked) unless the same signature was
 * printed less than interval_ms ago.  Safe from several threads at once;
 * reports never interleave.  Returns 1 if printed, 0 if only counted,
 * -EINVAL for a bad record (reason in @why, nothing counted) or -ENOMEM.
 */
int report_log_submit(struct report_log *log, const struct csan_hc_report *r, char *why,
		      size_t whylen);

/*
 * report_log_submit_every - report_log_submit with @interval_ms for this
 * report instead of the log's: the Linux guest's own reports print every
 * time (KCSAN rate-limits them itself), the host's findings beside them
 * once per interval.
 */
int report_log_submit_every(struct report_log *log, const struct csan_hc_report *r,
			    unsigned interval_ms, char *why, size_t whylen);

/*
 * report_log_set_mode - the watch mode from now on (@hw: "hw", else
 * "soft"), as reports and the summary print it.  Thread-safe.
 */
void report_log_set_mode(struct report_log *log, bool hw);

/*
 * report_log_summary - print every distinct race, in the order first seen,
 * with its count, first-seen time and the mechanisms that saw it, on the
 * text stream (prefixed "csan-vmm: ") and as "summary" objects in the
 * JSON.  Prints nothing when there were no reports.
 */
void report_log_summary(struct report_log *log);

/*
 * report_log_races - call @fn(@race, @ctx) for every distinct race, in the
 * order first seen, under the log's lock (so @fn must not call back into
 * the log); the strings live until report_log_free.  Stops early and
 * returns @fn's value when it returns nonzero; returns 0 otherwise.
 */
int report_log_races(struct report_log *log,
		     int (*fn)(const struct report_log_race *race, void *ctx), void *ctx);

/*
 * report_log_mech_names - the mechanisms in @mechs (bit 1 << CSAN_MECH_*)
 * as "soft-watchpoint+debug-register" into @buf (@len bytes, truncated to
 * fit); "" for none.  Returns @buf.
 */
const char *report_log_mech_names(unsigned mechs, char *buf, size_t len);

/*
 * report_log_counts - the reports counted into *@total and the races
 * tracked into *@distinct, read together (either may be NULL).
 * report_log_total, report_log_distinct - each alone.
 */
void report_log_counts(struct report_log *log, uint64_t *total, unsigned *distinct);
uint64_t report_log_total(struct report_log *log);
unsigned report_log_distinct(struct report_log *log);

#endif /* CSAN_WATCH_REPORT_LOG_H */
