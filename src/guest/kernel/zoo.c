/* zoo.c: the race zoo's runner: workers on every CPU, the stop rule, the verdict. */
#include <csan/abi.h>

#include "csan.h"
#include "percpu.h"
#include "printk.h"
#include "scenario.h"
#include "smp.h"
#include "tsc.h"
#include "zoo.h"

/*
 * Steps between looks at the clock and the report counters: few enough
 * that a run stops soon after its report, many enough that the look is
 * not most of what a CPU does.
 */
#define ZOO_CHECK_EVERY 16

/* Per outcome: its name on the result line, and the report kinds that matter. */
static const struct zoo_outcome_info {
	const char *name;
	unsigned int expected_kind; /* counted as expected_reports; 0: none is */
	unsigned int stop_kind;	    /* ends the run early; 0: any report does */
} zoo_outcomes[] = {
	[ZOO_NONE] = { "none", 0, 0 },
	[ZOO_DATA_RACE] = { "data-race", CSAN_REPORT_DATA_RACE, CSAN_REPORT_DATA_RACE },
	[ZOO_ASSERT] = { "assert", CSAN_REPORT_ASSERT, CSAN_REPORT_ASSERT },
	[ZOO_UNKNOWN_ORIGIN] = { "unknown-origin", CSAN_REPORT_UNKNOWN_ORIGIN,
				 CSAN_REPORT_UNKNOWN_ORIGIN },
	/* The first report settles it either way: no point running on. */
	[ZOO_AT_MOST_UNKNOWN_ORIGIN] = { "none-or-unknown-origin", CSAN_REPORT_UNKNOWN_ORIGIN, 0 },
};

/* One run's shared state; the runner itself is never instrumented. */
static struct {
	unsigned int stop_kind;
	uint64_t deadline;
	uint64_t t_start_us;
	uint64_t first_report_us; /* since t_start_us; 0 until a stopping report */
	bool stop;
	uint64_t iterations[CSAN_MAX_CPUS]; /* each CPU writes only its own */
	uint64_t sink[CSAN_MAX_CPUS];
} zoo;

/* Do the knobs in force have every value in @when?  (None named: no.) */
static bool zoo_knobs_hold(const struct zoo_knob *when)
{
	unsigned int k;
	uint32_t v;

	if (!when[0].name)
		return false;
	for (k = 0; k < ZOO_MAX_KNOBS && when[k].name; k++)
		if (!csan_knob_get(when[k].name, &v) || v != when[k].value)
			return false;
	return true;
}

/* The outcome the row expects now: by watch mode, and by its knobs if it has any. */
static enum zoo_outcome zoo_expected(const struct zoo_row *row)
{
	const struct zoo_expect *e = zoo_knobs_hold(row->when) ? &row->when_expect : &row->expect;

	return csan_watch_hw() ? e->hw : e->soft;
}

/* The first CPU to see a stopping report records when (never 0: 0 means none yet). */
static void zoo_note_first_report(void)
{
	uint64_t none = 0, now = uptime_us() - zoo.t_start_us;

	__atomic_compare_exchange_n(&zoo.first_report_us, &none, now ? now : 1, false,
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

static void zoo_worker(void *arg)
{
	const struct zoo_row *row = arg;
	unsigned int cpu = this_cpu_id(), k;
	uint64_t n = 0, sum = 0;
	bool reported;

	while (!READ_ONCE(zoo.stop)) {
		for (k = 0; k < ZOO_CHECK_EVERY; k++)
			sum += row->step(cpu, n + k);
		n += ZOO_CHECK_EVERY;
		reported = csan_reports_sent(zoo.stop_kind) != 0;
		if (reported && !READ_ONCE(zoo.first_report_us))
			zoo_note_first_report();
		if ((row->done ? row->done() : reported) || deadline_passed(zoo.deadline))
			WRITE_ONCE(zoo.stop, true);
	}
	zoo.iterations[cpu] = n;
	WRITE_ONCE(zoo.sink[cpu], sum);
}

/* Reports sent, by kind, read once: index 0 is their sum, so the counts agree. */
static void zoo_count_reports(uint64_t sent[CSAN_REPORT_KIND_MAX])
{
	unsigned int k;

	sent[0] = 0;
	for (k = 1; k < CSAN_REPORT_KIND_MAX; k++) {
		sent[k] = csan_reports_sent(k);
		sent[0] += sent[k];
	}
}

/* Of @sent, the reports of the kinds in @also_kinds other than @expected_kind. */
static uint64_t zoo_also_reports(const uint64_t sent[CSAN_REPORT_KIND_MAX],
				 unsigned int expected_kind, unsigned int also_kinds)
{
	uint64_t n = 0;
	unsigned int k;

	for (k = 1; k < CSAN_REPORT_KIND_MAX; k++)
		if (k != expected_kind && (also_kinds & ZOO_KIND(k)))
			n += sent[k];
	return n;
}

/* The kinds @row accepts besides its outcome's, in the current watch mode. */
static unsigned int zoo_also_kinds(const struct zoo_row *row)
{
	if (row->hw_knows_writer && csan_watch_hw())
		return row->also_kinds & ~ZOO_ONE_SIDED;
	return row->also_kinds;
}

/*
 * Did the run show @want?  @expected reports of its kind, @also of the
 * kinds the row accepts besides, @reports in all: every report must be
 * one of those, so a stray report of another kind fails the row.
 */
static bool zoo_matched(enum zoo_outcome want, uint64_t expected, uint64_t also, uint64_t reports)
{
	switch (want) {
	case ZOO_NONE: return reports == 0;
	case ZOO_AT_MOST_UNKNOWN_ORIGIN: return reports == expected + also;
	default: return expected > 0 && reports == expected + also;
	}
}

/* Why a run did not match: a report it did not expect, or no expected one. */
static const char *zoo_mismatch_reason(enum zoo_outcome want, uint64_t expected)
{
	if (want == ZOO_NONE || want == ZOO_AT_MOST_UNKNOWN_ORIGIN || expected > 0)
		return "unexpected-report";
	return "no-report";
}

int zoo_run(const struct zoo_row *row)
{
	const enum zoo_outcome want = zoo_expected(row);
	const struct zoo_outcome_info *info = &zoo_outcomes[want];
	unsigned int ncpus = csan_ncpus(), cpu;
	uint64_t total = 0, elapsed_us, expected, also, sent[CSAN_REPORT_KIND_MAX];
	bool matched, finished = true;

	csan_result_add("expect=%s mode=%s cpus=%u", info->name, csan_watch_hw() ? "hw" : "soft",
			ncpus);
	if (ncpus < row->min_cpus) {
		printk("%s: needs %u or more CPUs, has %u\n", csan_scenario_name(), row->min_cpus,
		       ncpus);
		csan_result_add("reason=needs-%u-cpus", row->min_cpus);
		return 1;
	}

	zoo.stop_kind = info->stop_kind;
	if (row->setup)
		row->setup();
	zoo.t_start_us = uptime_us();
	zoo.deadline = deadline_after_us((uint64_t)row->budget_ms * 1000);
	csan_run_on_cpus(zoo_worker, (void *)row);
	elapsed_us = uptime_us() - zoo.t_start_us;

	for (cpu = 0; cpu < ncpus; cpu++)
		total += zoo.iterations[cpu];
	zoo_count_reports(sent);
	expected = info->expected_kind ? sent[info->expected_kind] : 0;
	also = zoo_also_reports(sent, info->expected_kind, zoo_also_kinds(row));
	matched = zoo_matched(want, expected, also, sent[0]);
	csan_result_add("expected_reports=%lu reports=%lu unknown_origin=%lu first_report_ms=%lu "
			"elapsed_ms=%lu iterations=%lu setup_watchpoints=%lu matched=%s",
			(unsigned long)expected, (unsigned long)sent[0],
			(unsigned long)sent[CSAN_REPORT_UNKNOWN_ORIGIN],
			(unsigned long)(zoo.first_report_us / 1000),
			(unsigned long)(elapsed_us / 1000), (unsigned long)total,
			(unsigned long)csan_counter(CSAN_COUNTER_SETUP_WATCHPOINTS),
			matched ? "yes" : "no");
	if (row->finish)
		finished = row->finish(total);
	csan_counters_print();
	if (!matched) {
		printk("%s: expected %s in %s mode, saw %lu report(s) (%lu of the expected kind, "
		       "%lu of kinds the row accepts besides) in %lu ms\n",
		       csan_scenario_name(), info->name, csan_watch_hw() ? "hw" : "soft",
		       (unsigned long)sent[0], (unsigned long)expected, (unsigned long)also,
		       (unsigned long)(elapsed_us / 1000));
		csan_result_add("reason=%s", zoo_mismatch_reason(want, expected));
	}
	return matched && finished ? 0 : 1;
}
