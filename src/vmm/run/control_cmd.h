/* control_cmd.h: the control protocol's commands: parse a line, run it, reply. */
#ifndef CSAN_VMM_CONTROL_CMD_H
#define CSAN_VMM_CONTROL_CMD_H

#include <stdint.h>
#include <stdio.h>

#include "vmm/guest/csan/knob.h"
#include "vmm/sample/sample.h"

struct vm;

/* The longest command line a client may send, newline excluded. */
#define CONTROL_LINE_MAX 256

enum control_verb {
	CONTROL_EMPTY,	      /* a blank line: no command, no reply */
	CONTROL_HELP,	      /* help */
	CONTROL_WATCH_SHOW,   /* watch */
	CONTROL_WATCH_HW,     /* watch hw */
	CONTROL_WATCH_SOFT,   /* watch soft */
	CONTROL_WATCH_SAMPLE, /* watch sample: only where the run started sampling */
	CONTROL_STATS,	      /* stats */
	CONTROL_GET_ALL,      /* get */
	CONTROL_GET,	      /* get KNOB */
	CONTROL_SET,	      /* set KNOB VALUE */
	CONTROL_QUIT,	      /* quit */
};

struct control_cmd {
	enum control_verb verb;
	const struct knob *knob; /* CONTROL_GET, CONTROL_SET: a knob of the guest runtime */
	const struct sample_knob *sample_knob; /* ... or of sampling (--watch=sample) */
	uint32_t value;			       /* CONTROL_SET, checked against the knob's range */
};

/*
 * control_parse - parse one command line @line (no newline; words split
 * by spaces and tabs) into @cmd.  Returns 0, or -EINVAL with the reason,
 * fit for an "error: " reply, in @why (@whylen bytes): an unknown command
 * or knob, a missing or extra word, a value that is not a number or is
 * out of the knob's range.
 */
int control_parse(const char *line, struct control_cmd *cmd, char *why, size_t whylen);

/* What control_run asks of its caller once the reply is sent. */
enum control_after { CONTROL_CONTINUE, CONTROL_END_RUN };

/*
 * control_run - carry out @cmd on @vm and write the reply on @reply: zero
 * or more lines, then "ok" or "error: REASON".  A quit only replies; it
 * returns CONTROL_END_RUN and the caller ends the run after sending the
 * reply, so the client hears "ok" before the VM goes.
 */
enum control_after control_run(struct vm *vm, const struct control_cmd *cmd, FILE *reply);

/*
 * control_print_stats - the runtime's counters ("csan-vmm: counters:"
 * line) and the races reported so far, on @f, as "stats" and Ctrl-a s
 * show them.  Returns 0, or -EAGAIN (nothing printed) before the guest
 * runtime attached its control block.
 */
int control_print_stats(struct vm *vm, FILE *f);

/* control_help - the command list, one per line, on @f. */
void control_help(FILE *f);

#endif /* CSAN_VMM_CONTROL_CMD_H */
