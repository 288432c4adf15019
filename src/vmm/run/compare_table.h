/* compare_table.h: the soft-against-hw comparison: what each mode found, printed. */
#ifndef CSAN_VMM_COMPARE_TABLE_H
#define CSAN_VMM_COMPARE_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct report_log_race;

/*
 * The name a scenario row gets when the guest chose its own scenario;
 * no real one can clash: scenario names have no parentheses.
 */
#define COMPARE_DEFAULT_SCENARIO "(default)"

enum compare_mode { COMPARE_SOFT, COMPARE_HW, COMPARE_NMODES };

/* One scenario run in one mode. */
struct compare_run {
	bool ran;	 /* false: left out (no hw here) or never booted */
	int status;	 /* its exit status (exit_status.h) */
	double wall_s;	 /* host wall time of the run */
	bool has_guest_ms;
	uint64_t guest_ms; /* elapsed_ms= of the guest's result line */
	char result[8];	   /* status= of the result line: "pass", "fail"; "" without one */
	uint64_t reports;  /* race reports counted */
};

/* What one mode saw of one race. */
struct compare_hit {
	uint64_t count;	   /* 0: this mode did not report it */
	double first_seen; /* seconds from its run's start */
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
	bool hw_available;	/* false: the hw column is left out */
	char hw_note[512];	/* the probe's finding when !hw_available */
	struct compare_scenario *scenarios;
	size_t nscenarios;
	struct compare_race *races; /* scenario order, then first seen */
	size_t nraces;
};

/* compare_table_free - release what the add functions allocated in @t. */
void compare_table_free(struct compare_table *t);

/*
 * compare_table_add_scenario - append scenario @name (NULL: the guest's
 * default) to @t.  Returns its index, or -ENOMEM.
 */
int compare_table_add_scenario(struct compare_table *t, const char *name);

/*
 * compare_table_add_race - record that mode @mode of scenario @scenario
 * reported @race: merged with the other mode's row of the same signature,
 * else a new row.  Returns 0, or -ENOMEM.
 */
int compare_table_add_race(struct compare_table *t, size_t scenario, enum compare_mode mode,
			   const struct report_log_race *race);

/*
 * compare_table_pair_one_sided - after every run: a race one mode saw
 * only one-sided ("unknown-origin:f", the other side unseen) and the other
 * mode named with both sides ("data-race:f/g") is one race.  When exactly
 * one two-sided row of the same scenario names f, reported by the other
 * mode only, the one-sided row's hit moves onto it (reported_as keeps its
 * signature) and the one-sided row goes.  Returns 0, or -ENOMEM.
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
 * each mode's count, time to first report and what saw the other side),
 * one row per scenario run (exit status, result, wall and guest time,
 * slowdown), then the totals.  The hw columns are left out, with one line
 * saying why, when !t->hw_available.
 */
void compare_table_print(const struct compare_table *t, FILE *f);

/* compare_table_json - the same as one JSON object on @f (several lines). */
void compare_table_json(const struct compare_table *t, FILE *f);

/*
 * compare_exit_status - the exit status of the whole comparison: the most
 * serious of its runs' (verdict_combine: 130, 2, 3, 4, 5, 1, 0), and 1
 * rather than 0 when any run reported a race.
 */
int compare_exit_status(const struct compare_table *t);

#endif /* CSAN_VMM_COMPARE_TABLE_H */
