/* fuzz-linux-report.c: a Linux guest's console, read for KCSAN reports. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "watch/linux_report.h"
#include "watch/report_log.h"
#include "watch/sym.h"

static struct sym *sym;
static FILE *devnull;

/* A report the parser finished: a record, which must validate, then logged. */
static void take(struct report_log *log, struct linux_report *lr)
{
	struct csan_hc_report rec;
	char why[256] = "";

	if (linux_report_to_record(lr, sym, &rec, NULL, why, sizeof(why)) != 0) {
		if (!why[0])
			abort(); /* every refusal says why */
	} else if (report_validate(&rec, why, sizeof(why)) != 0) {
		fprintf(stderr, "fuzz-linux-report: a record that does not validate: %s\n", why);
		abort();
	} else if (report_log_submit(log, &rec, why, sizeof(why)) < 0) {
		abort();
	}
	linux_report_free(lr);
}

/*
 * The input is console text, cut into lines at '\n' as the VMM's console
 * does; frames named like symtest.elf's functions (leaf, mid, writer ...)
 * resolve, so whole reports reach the report log.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct report_log_opts lo = { 0 };
	struct linux_report_parser *p;
	struct linux_report *lr;
	struct report_log *log;
	const char *s = (const char *)data, *end = s + size;
	char why[256];
	int rc;

	if (!sym) {
		if (sym_open(FUZZ_SYMTEST_ELF, &sym, why, sizeof(why)) ||
		    !(devnull = fopen("/dev/null", "w"))) {
			fprintf(stderr, "fuzz-linux-report: %s\n", why);
			abort();
		}
	}
	lo.sym = sym;
	lo.env.guest = "fuzz";
	lo.env.mode = "soft";
	lo.env.scoped_word = "reordered";
	lo.text = devnull;
	lo.json = devnull;
	if (report_log_new(&lo, &log))
		return 0;
	if (linux_report_parser_new(&p)) {
		report_log_free(log);
		return 0;
	}
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t len = nl ? (size_t)(nl - s) + 1 : (size_t)(end - s);

		rc = linux_report_feed(p, s, len, &lr);
		if ((rc == LINUX_LINE_DONE) != (lr != NULL))
			abort();
		if (lr)
			take(log, lr);
		s += len;
	}
	if (linux_report_flush(p, &lr) == 1)
		take(log, lr);
	report_log_summary(log);
	linux_report_parser_free(p);
	report_log_free(log);
	return 0;
}
