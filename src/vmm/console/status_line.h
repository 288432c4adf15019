/* status_line.h: a live progress line on stderr while a guest runs. */
#ifndef CSAN_VMM_STATUS_LINE_H
#define CSAN_VMM_STATUS_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vm;

/* How often the line is redrawn, and how long other output keeps it away. */
#define STATUS_LINE_PERIOD_MS 500
#define STATUS_LINE_QUIET_MS  1000

/* One reading of what the line shows. */
struct status_sample {
	int64_t ms;		    /* since the run started */
	uint64_t setup_watchpoints; /* guest counter: watchpoints ever set up */
	uint64_t hw_armed;	    /* guest counter: watches backed by debug registers */
	uint64_t races;		    /* reports the host has counted */
};

/*
 * status_line_wanted - whether a run should draw the line: stderr is a
 * terminal that can return to the line's start (TERM set, not "dumb")
 * and the user did not ask for --quiet.
 */
bool status_line_wanted(bool quiet);

/*
 * What the line shows, read by the caller (its counters live above this
 * room): fill @s's counts for @vm, with the @ctx given to
 * status_line_attach; @s->ms is set by the line.  Called on
 * the supervising thread, outside stderr's lock.
 */
typedef void (*status_sample_fn)(struct vm *vm, void *ctx, struct status_sample *s);

/*
 * status_line_attach - draw the line while @vm runs: from the start of
 * the run (output just before it, the boot line, counts as recent, so
 * the first draw comes STATUS_LINE_QUIET_MS in), redrawn by the
 * supervisor's tick when a period has passed and nothing else was printed
 * in the last STATUS_LINE_QUIET_MS, erased when the run's end is decided.
 * In hw mode (which may be switched at run time) the line adds the
 * hardware-arm rate.  One line per process: the last attach's sampler
 * wins.  Returns 0, or a negative errno with a message in @why.
 */
int status_line_attach(struct vm *vm, status_sample_fn fn, void *ctx, char *why, size_t whylen);

/*
 * status_line_hide - erase the line if it is on the terminal, and keep it
 * away for STATUS_LINE_QUIET_MS.  While a line is drawn it is base/log.h's
 * before-output hook, so messages and the guest console (which call
 * log_before_output) erase it first; nobody calls it by name.  Any
 * thread; cheap when no line is drawn.
 */
void status_line_hide(void);

/*
 * status_line_format - the line's text for @now, with rates over the time
 * since @prev (the previous draw, or the start), into @buf (@len bytes).
 * Returns what snprintf returns.
 */
int status_line_format(char *buf, size_t len, const struct status_sample *now,
		       const struct status_sample *prev, bool hw);

#endif /* CSAN_VMM_STATUS_LINE_H */
