/* fuzz-report.c: race records from the guest: checked, then printed. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "watch/report.h"
#include "watch/report_log.h"
#include "watch/sym.h"

static struct sym *sym;
static FILE *devnull;

/*
 * The input is the record itself (zero-padded); sides whose stacks point
 * into symtest.elf's text get real frames, others "??".  A record that
 * report_validate accepts goes through the whole pipeline (symbolize,
 * text, JSON, summary) with a fresh log, so a repeat within the input
 * also exercises the rate limiter.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct report_log_opts lo = { 0 };
	struct csan_hc_report r;
	struct report_log *log;
	char why[256];
	int rc;

	if (!sym) {
		if (sym_open(FUZZ_SYMTEST_ELF, &sym, why, sizeof(why)) ||
		    !(devnull = fopen("/dev/null", "w"))) {
			fprintf(stderr, "fuzz-report: %s\n", why);
			abort();
		}
	}
	memset(&r, 0, sizeof(r));
	memcpy(&r, data, size < sizeof(r) ? size : sizeof(r));
	why[0] = '\0';
	if (report_validate(&r, why, sizeof(why)) != 0) {
		if (!why[0])
			abort(); /* every rejection names the field */
		return 0;
	}
	lo.sym = sym;
	lo.env.guest = "fuzz";
	lo.env.mode = "soft";
	lo.text = devnull;
	lo.json = devnull;
	/*
	 * Long enough that the repeat always falls inside it: with 1 s, a
	 * fuzzer descheduled for a second between the two submissions on a
	 * loaded machine saw the repeat printed and "crashed" (2.2 M execs in).
	 */
	lo.interval_ms = 3600 * 1000;
	if (report_log_new(&lo, &log))
		return 0;
	rc = report_log_submit(log, &r, why, sizeof(why));
	if (rc != 1)
		abort(); /* valid, first of its kind: printed */
	rc = report_log_submit(log, &r, why, sizeof(why));
	if (rc != 0 || report_log_total(log) != 2 || report_log_distinct(log) != 1)
		abort(); /* the repeat is counted, not printed */
	report_log_summary(log);
	report_log_free(log);
	return 0;
}
