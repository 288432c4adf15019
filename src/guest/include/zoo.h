/* zoo.h: the race zoo's runner: a row is a const description, zoo_run() does the rest. */
#ifndef GUEST_ZOO_H
#define GUEST_ZOO_H

#include <stdbool.h>
#include <stdint.h>

/*
 * What a row expects to see, per watch mode (docs: ../shared/ZOO.md).
 * Each names the report kind that ends the run early; a row expecting
 * nothing stops at the first report of any kind, which fails it.  Reports
 * of other kinds fail the row too, unless it names them in also_kinds.
 */
enum zoo_outcome {
	ZOO_NONE,		    /* no report at all within the budget */
	ZOO_DATA_RACE,		    /* at least one "data-race" report (two stacks) */
	ZOO_ASSERT,		    /* at least one "assert: race" report */
	ZOO_UNKNOWN_ORIGIN,	    /* at least one single-stack unknown-origin report */
	ZOO_AT_MOST_UNKNOWN_ORIGIN, /* nothing, or unknown-origin reports only */
};

struct zoo_expect {
	enum zoo_outcome soft; /* soft watchpoints only (the default) */
	enum zoo_outcome hw;   /* debug registers back the watchpoints (--watch=hw) */
};

/* A runtime knob setting (csan.NAME=VALUE, NAME without "csan."). */
struct zoo_knob {
	const char *name;
	uint32_t value;
};
#define ZOO_MAX_KNOBS 2

struct zoo_row {
	/*
	 * One step of CPU @cpu's work, the @i-th on that CPU.  The runner
	 * adds up what it returns and stores the sum with a marked store,
	 * so reads a step makes are not optimized away.
	 */
	uint64_t (*step)(unsigned int cpu, uint64_t i);
	/* Before the workers start, on the boot CPU (may be NULL). */
	void (*setup)(void);
	/*
	 * After they all stopped, with the total of steps taken (may be
	 * NULL): the row's own checks and result fields; false fails the row
	 * (it adds its reason= itself).
	 */
	bool (*finish)(uint64_t iterations);
	/*
	 * The row's own rule for ending early (may be NULL): checked
	 * instead of "a report of the expected kind came", for rows that
	 * want more than one report.
	 */
	bool (*done)(void);
	unsigned int min_cpus;
	unsigned int budget_ms; /* run until an expected report or this long */
	struct zoo_expect expect;
	/*
	 * Rows whose outcome turns on runtime knobs: while every csan.NAME
	 * in @when (up to ZOO_MAX_KNOBS, the unused ones with no name) has
	 * its value, @when_expect applies instead of @expect.
	 */
	struct zoo_knob when[ZOO_MAX_KNOBS];
	struct zoo_expect when_expect;
	/*
	 * Report kinds the row accepts besides the one its outcome names,
	 * as ZOO_KIND(CSAN_REPORT_...) bits: for a bug that can also show
	 * as another kind.  Any report of a kind not named here fails a row
	 * that expects a report, as any report fails one that expects none.
	 */
	unsigned int also_kinds;
	/*
	 * The row's racing writes are instrumented and sit inside the
	 * watched bytes, so in hw mode a debug register or the soft
	 * watchpoint always names them: a one-sided report (ZOO_ONE_SIDED)
	 * fails the row in hw mode even when also_kinds accepts it in soft.
	 */
	bool hw_knows_writer;
};

#define ZOO_KIND(kind) (1u << (kind))

/*
 * A race whose racing side is a write can also show one-sided: the
 * writer looks for a watchpoint just before the watcher arms one and
 * stores just after, so the watcher sees the value change with no other
 * side ("race at unknown origin", as in KCSAN).  Slow vCPUs (PVM, a
 * sanitizer build's host, a loaded machine) widen that window.  Rows
 * whose racing writes are instrumented accept it with this in also_kinds;
 * their tests pin its shape to the watcher's frame (allow_unknown_origin).
 */
#define ZOO_ONE_SIDED ZOO_KIND(CSAN_REPORT_UNKNOWN_ORIGIN)

/*
 * zoo_run - run @row on every online CPU until its budget ends or a
 * report of the kind its expected outcome names, add the standard fields
 * to the result line (expect=, mode=, cpus=, expected_reports=, reports=,
 * unknown_origin=, first_report_ms=, elapsed_ms=, iterations=,
 * setup_watchpoints=, matched=) and return 0 when what happened is what
 * the row expects in the current watch mode, 1 otherwise.
 */
int zoo_run(const struct zoo_row *row);

/*
 * zoo_witness - a plain, race-free access to CPU @cpu's own slot, for a
 * row whose shared accesses are all marked and so never watched: its
 * watchpoints show the runtime watched while the row ran.  Returns the
 * slot's new count.
 */
uint64_t zoo_witness(unsigned int cpu);

/*
 * ZOO_SCENARIO - register @row_ (a const struct zoo_row) as scenario
 * @name_ with a one-line @summary_.
 */
#define ZOO_SCENARIO(name_, summary_, row_)                                                        \
	static int row_##_run(void)                                                                \
	{                                                                                          \
		return zoo_run(&row_);                                                             \
	}                                                                                          \
	CSAN_SCENARIO(name_, summary_, row_##_run, 0)

#endif /* GUEST_ZOO_H */
