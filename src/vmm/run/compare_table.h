/* compare_table.h: the comparison of watch modes: what each mode found, printed. */
#ifndef CSAN_VMM_COMPARE_TABLE_H
#define CSAN_VMM_COMPARE_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vmm/run/compare_modes.h"

struct report_log_race;

/*
 * The name a scenario row gets when the guest chose its own scenario;
 * no real one can clash: scenario names have no parentheses.
 */
#define COMPARE_DEFAULT_SCENARIO "(default)"

/* One scenario run in one mode. */
struct compare_run {
	bool ran;      /* false: left out (no hw here) or never booted */
	int status;    /* its exit status (exit_status.h) */
	double wall_s; /* host wall time of the run */
	bool has_guest_ms;
	uint64_t guest_ms; /* elapsed_ms= of the guest's result line */
	char result[8];	   /* status= of the result line: "pass", "fail"; "" without one */
	uint64_t reports;  /* race reports counted */
	/*
	 * Sample mode: of those, the reports no sampling breakpoint took
	 * part in, made by the kernel's own race detector (KCSAN in the test
	 * kernel): printed by the run, but not sampling's finding.
	 */
	uint64_t own_reports;
};

/* What one mode saw of one race. */
struct compare_hit {
	uint64_t count;		   /* 0: this mode did not report it */
	double first_seen;	   /* seconds from its run's start */
	unsigned other_mechanisms; /* report_log_race.other_mechanisms */
	char *reported_as; /* its own signature when paired with a row of another (one-sided) */
};

/* One distinct race: a signature within a scenario. */
struct compare_race {
	size_t scenario; /* index into compare_table.scenarios */
	char *signature;
	char *title;
	struct compare_hit hit[COMPARE_NMODES];
};

struct compare_scenario {
	char *name; /* COMPARE_DEFAULT_SCENARIO when the guest chose */
	struct compare_run run[COMPARE_NMODES];
};

struct compare_table {
	uint64_t seed;
	unsigned timeout_s; /* 0: none */
	unsigned cpus;
	unsigned modes;	   /* COMPARE_BIT set asked for; 0: COMPARE_DEFAULT_MODES */
	bool hw_available; /* false: the hw and sample columns are left out */
	char hw_note[512]; /* the probe's finding when !hw_available */
	struct compare_scenario *scenarios;
	size_t nscenarios;
	struct compare_race *races; /* scenario order, then first seen */
	size_t nraces;
};

/* compare_table_modes - the modes asked for (COMPARE_DEFAULT_MODES when t->modes is 0). */
unsigned compare_table_modes(const struct compare_table *t);

/*
 * compare_table_shown - the modes run and shown: those asked for, less hw
 * and sample where the host cannot deliver data watchpoints.
 */
unsigned compare_table_shown(const struct compare_table *t);

/* compare_table_free - release what the add functions allocated in @t. */
void compare_table_free(struct compare_table *t);

/*
 * compare_table_add_scenario - append scenario @name (NULL: the guest's
 * default) to @t.  Returns its index, or -ENOMEM.
 */
int compare_table_add_scenario(struct compare_table *t, const char *name);

/*
 * compare_table_add_race - record that mode @mode of scenario @scenario
 * reported @race: merged with another mode's row of the same signature,
 * else a new row.  In sample mode only the reports a sampling breakpoint
 * took part in count (@race's sampled_*); the rest, the kernel's own
 * detector's, go to the run's own_reports, and a race with none of
 * sampling's makes no row.  Returns 0, or -ENOMEM.
 */
int compare_table_add_race(struct compare_table *t, size_t scenario, enum compare_mode mode,
			   const struct report_log_race *race);

/*
 * compare_table_pair_one_sided - after every run: a race some modes saw
 * only one-sided ("unknown-origin:f", the other side unseen) and others
 * named with both sides ("data-race:f/g") is one race.  When exactly one
 * two-sided row of the same scenario names f and was reported only by
 * modes that did not report the one-sided row, the one-sided row's hits
 * move onto it (reported_as keeps its signature) and the one-sided row
 * goes.  Returns 0, or -ENOMEM.
 */
int compare_table_pair_one_sided(struct compare_table *t);

/*
 * compare_parse_result_line - take status= and elapsed_ms= from a guest
 * "csan-result: scenario=NAME status=pass|fail key=value..." @line into
 * @run.  Returns 0, or -EINVAL when @line is not a result line (then @run
 * is left as it was).
 */
int compare_parse_result_line(const char *line, struct compare_run *run);

/*
 * compare_table_print - the table as text on @f: one row per race (with
 * each shown mode's count, time to first report and what saw the other
 * side), one row per scenario run (exit status, result, wall and guest
 * time, slowdown against the first mode), then the totals.  The hw and
 * sample columns are left out, with one line saying why, when
 * !t->hw_available.  (compare_print.c)
 */
void compare_table_print(const struct compare_table *t, FILE *f);

/* compare_table_json - the same as one JSON object on @f (several lines).  (compare_json.c) */
void compare_table_json(const struct compare_table *t, FILE *f);

/*
 * compare_exit_status - the exit status of the whole comparison: the most
 * serious of its runs' (verdict_combine: 130, 2, 3, 4, 5, 1, 0), and 1
 * rather than 0 when any run reported a race.
 */
int compare_exit_status(const struct compare_table *t);

#endif /* CSAN_VMM_COMPARE_TABLE_H */
