/* verdict.c: how a run ended, as one exit status, one closing line and one JSON record. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#include "vmm/base/exit_status.h"
#include "vmm/run/verdict.h"

/* The workload did not do what it was meant to (verdict_status's rule for 5). */
static bool workload_failed(const struct verdict_facts *f)
{
	const struct guest_findings *s = &f->seen;
	/* Only a guest that ended by itself owed us the rest; a quit cut it short. */
	bool finished = f->end.end == VM_END_EXIT;

	if (s->workload_status > 0 || s->kunit_failed)
		return true;
	return finished &&
	       ((s->workload_expected && s->workload_status < 0) || s->kunit_incomplete);
}

uint64_t verdict_races(const struct verdict_facts *f)
{
	return f->races + f->seen.races_unlogged;
}

int verdict_status(const struct verdict_facts *f)
{
	switch (f->end.end) {
	case VM_END_SIGNAL: return EXIT_INTERRUPTED;
	case VM_END_HOST_ERROR: return EXIT_USAGE;
	default: break;
	}
	if (f->end.end == VM_END_FAULT || f->seen.crashed)
		return EXIT_CRASH;
	if (f->end.end == VM_END_TIMEOUT)
		return EXIT_TIMEOUT;
	if (workload_failed(f))
		return EXIT_WORKLOAD_FAILED;
	return verdict_races(f) ? EXIT_RACES : EXIT_CLEAN;
}

const char *verdict_word(int status)
{
	switch (status) {
	case EXIT_CLEAN: return "clean";
	case EXIT_RACES: return "races";
	case EXIT_USAGE: return "error";
	case EXIT_CRASH: return "crash";
	case EXIT_TIMEOUT: return "timeout";
	case EXIT_WORKLOAD_FAILED: return "workload-failed";
	case EXIT_INTERRUPTED: return "interrupted";
	default: return "unknown";
	}
}

const char *verdict_end_word(enum vm_end end)
{
	switch (end) {
	case VM_END_EXIT: return "exit";
	case VM_END_FAULT: return "fault";
	case VM_END_TIMEOUT: return "timeout";
	case VM_END_SIGNAL: return "signal";
	case VM_END_HOST_ERROR: return "host-error";
	case VM_END_QUIT: return "quit";
	default: return "unknown";
	}
}

/* snprintf at @buf + *@used, never past @len; keeps *@used at most len - 1. */
static void append(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*used + 1 >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *used, len - *used, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	*used = *used + (size_t)n < len ? *used + (size_t)n : len - 1;
}

char *verdict_line(char *buf, size_t len, const struct verdict_facts *f, int status)
{
	const struct guest_findings *s = &f->seen;
	uint64_t races = verdict_races(f);
	size_t used = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	append(buf, len, &used,
	       "exit status %d (%s): %" PRIu64 " race report%s; workload: ", status,
	       verdict_word(status), races, races == 1 ? "" : "s");
	if (s->workload_status >= 0)
		append(buf, len, &used, "exit status %d", s->workload_status);
	else
		append(buf, len, &used, "%s",
		       s->workload_expected ? "no exit status reported" : "none");
	if (!s->kunit_suites) {
		append(buf, len, &used, "; KUnit: none");
		return buf;
	}
	append(buf, len, &used, "; KUnit: %u passed, %u failed, %u skipped", s->kunit_passed,
	       s->kunit_failed, s->kunit_skipped);
	if (s->kunit_incomplete)
		append(buf, len, &used, ", %u suite%s incomplete", s->kunit_incomplete,
		       s->kunit_incomplete == 1 ? "" : "s");
	return buf;
}

void verdict_json(FILE *out, const struct verdict_facts *f, int status, const char *mode)
{
	const struct guest_findings *s = &f->seen;

	fprintf(out,
		"{\"type\":\"exit\",\"status\":%d,\"word\":\"%s\",\"end\":\"%s\",\"mode\":\"%s\","
		"\"reports\":%" PRIu64 ",\"workload_status\":",
		status, verdict_word(status), verdict_end_word(f->end.end), mode, verdict_races(f));
	if (s->workload_status >= 0)
		fprintf(out, "%d", s->workload_status);
	else
		fputs("null", out);
	fprintf(out,
		",\"workload_expected\":%s,\"kunit\":", s->workload_expected ? "true" : "false");
	if (s->kunit_suites)
		fprintf(out,
			"{\"suites\":%u,\"passed\":%u,\"failed\":%u,\"skipped\":%u,"
			"\"incomplete\":%u}",
			s->kunit_suites, s->kunit_passed, s->kunit_failed, s->kunit_skipped,
			s->kunit_incomplete);
	else
		fputs("null", out);
	fputs("}\n", out);
}

/* Higher is more serious: the order verdict_combine promises. */
static int seriousness(int status)
{
	switch (status) {
	case EXIT_CLEAN: return 0;
	case EXIT_RACES: return 1;
	case EXIT_WORKLOAD_FAILED: return 2;
	case EXIT_TIMEOUT: return 3;
	case EXIT_CRASH: return 4;
	case EXIT_INTERRUPTED: return 6;
	case EXIT_USAGE:
	default: return 5;
	}
}

int verdict_combine(int a, int b)
{
	int worse = seriousness(a) >= seriousness(b) ? a : b;

	/* An unknown status is an error, and says so as 2. */
	return seriousness(worse) == 5 ? EXIT_USAGE : worse;
}
