/* control_cmd.c: the control protocol's commands: parse a line, run it, reply. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "vmm/base/log.h"
#include "vmm/guest/csan/csan_state.h"
#include "vmm/run/control_cmd.h"
#include "vmm/guest/csan/hc_attach.h"
#include "vmm/kvm/vm.h"
#include "vmm/hwwatch/watch_mode.h"
#include "vmm/sample/sample.h"
#include "watch/report_log.h"

/* No command has more words than "set KNOB VALUE"; one more catches extras. */
#define CONTROL_MAX_WORDS 4

#define NOT_ATTACHED                                                                               \
	"the guest runtime has not attached its control block yet; try again once the "            \
	"guest has started (its 'csan: soft watchpoints' line)"

/* Split @buf in place into at most CONTROL_MAX_WORDS words; returns how many. */
static int split_words(char *buf, char *words[CONTROL_MAX_WORDS])
{
	int n = 0;
	char *save = NULL, *w;

	for (w = strtok_r(buf, " \t\r", &save); w && n < CONTROL_MAX_WORDS;
	     w = strtok_r(NULL, " \t\r", &save))
		words[n++] = w;
	return n;
}

static int parse_error(char *why, size_t whylen, const char *fmt, const char *arg)
{
	snprintf(why, whylen, fmt, arg);
	return -EINVAL;
}

static int parse_knob(const char *name, struct control_cmd *cmd, char *why, size_t whylen)
{
	cmd->knob = knob_find(name);
	if (!cmd->knob)
		cmd->sample_knob = sample_knob_find(name);
	if (!cmd->knob && !cmd->sample_knob)
		return parse_error(why, whylen, "no knob '%s'; 'get' lists them", name);
	return 0;
}

/* A sampling knob's value: a decimal number in its range. */
static int parse_sample_value(struct control_cmd *cmd, const char *s, char *why, size_t whylen)
{
	const struct sample_knob *k = cmd->sample_knob;
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (s[0] < '0' || s[0] > '9' || *end || errno || v < k->min || v > k->max) {
		snprintf(why, whylen, "%s: '%s' is not a number from %" PRIu32 " to %" PRIu32,
			 k->name, s, k->min, k->max);
		return -EINVAL;
	}
	cmd->value = (uint32_t)v;
	cmd->verb = CONTROL_SET;
	return 0;
}

static int parse_set(char **w, int n, struct control_cmd *cmd, char *why, size_t whylen)
{
	int rc;

	if (n != 3)
		return parse_error(why, whylen, "%s", "usage: set KNOB VALUE");
	if (parse_knob(w[1], cmd, why, whylen))
		return -EINVAL;
	if (cmd->sample_knob)
		return parse_sample_value(cmd, w[2], why, whylen);
	rc = knob_parse_value(cmd->knob, w[2], &cmd->value);
	if (rc) {
		snprintf(why, whylen, "%s: '%s' is %s: give 0 to %" PRIu32 "%s", cmd->knob->name,
			 w[2], rc == -ERANGE ? "out of range" : "not a number", cmd->knob->max,
			 cmd->knob->max == 1 ? " (or y/n)" : "");
		return -EINVAL;
	}
	cmd->verb = CONTROL_SET;
	return 0;
}

static int parse_watch(char **w, int n, struct control_cmd *cmd, char *why, size_t whylen)
{
	if (n == 1)
		cmd->verb = CONTROL_WATCH_SHOW;
	else if (n == 2 && strcmp(w[1], "hw") == 0)
		cmd->verb = CONTROL_WATCH_HW;
	else if (n == 2 && strcmp(w[1], "soft") == 0)
		cmd->verb = CONTROL_WATCH_SOFT;
	else if (n == 2 && strcmp(w[1], "sample") == 0)
		cmd->verb = CONTROL_WATCH_SAMPLE;
	else
		return parse_error(why, whylen, "%s", "usage: watch [hw|soft|sample]");
	return 0;
}

int control_parse(const char *line, struct control_cmd *cmd, char *why, size_t whylen)
{
	char buf[CONTROL_LINE_MAX + 1];
	char *w[CONTROL_MAX_WORDS];
	int n;

	memset(cmd, 0, sizeof(*cmd));
	if (strlen(line) > CONTROL_LINE_MAX) {
		snprintf(why, whylen, "line longer than %d bytes", CONTROL_LINE_MAX);
		return -EINVAL;
	}
	strcpy(buf, line);
	n = split_words(buf, w);
	if (n == 0) {
		cmd->verb = CONTROL_EMPTY;
		return 0;
	}
	if (strcmp(w[0], "set") == 0)
		return parse_set(w, n, cmd, why, whylen);
	if (strcmp(w[0], "watch") == 0)
		return parse_watch(w, n, cmd, why, whylen);
	if (strcmp(w[0], "get") == 0) {
		if (n > 2)
			return parse_error(why, whylen, "%s", "usage: get [KNOB]");
		cmd->verb = n == 1 ? CONTROL_GET_ALL : CONTROL_GET;
		return n == 1 ? 0 : parse_knob(w[1], cmd, why, whylen);
	}
	if (strcmp(w[0], "help") == 0)
		cmd->verb = CONTROL_HELP;
	else if (strcmp(w[0], "stats") == 0)
		cmd->verb = CONTROL_STATS;
	else if (strcmp(w[0], "quit") == 0)
		cmd->verb = CONTROL_QUIT;
	else
		return parse_error(why, whylen, "unknown command '%s'; 'help' lists the commands",
				   w[0]);
	if (n > 1)
		return parse_error(why, whylen, "'%s' takes no arguments", w[0]);
	return 0;
}

void control_help(FILE *f)
{
	fprintf(f, "watch            print the watch mode (soft, hw or sample)\n"
		   "watch hw|soft    back watchpoints with debug registers, or not\n"
		   "watch sample     ok in a run started with --watch=sample (it cannot switch)\n"
		   "stats            the guest runtime's (or sampling's) counters and the races so "
		   "far\n"
		   "get [KNOB]       a knob's value (all knobs without KNOB)\n"
		   "set KNOB VALUE   change a knob of the guest runtime (or of sampling) now\n"
		   "help             this list\n"
		   "quit             end the run: summary printed, csan-vmm exits\n");
}

int control_print_stats(struct vm *vm, FILE *f)
{
	/* A sampling run's counters are the host's own: there from the start. */
	if (vm->sample)
		sample_print_stats(vm, f);
	else if (!csan_control(vm))
		return -EAGAIN;
	else
		hc_attach_print_counters(vm, f);
	if (vm->reports)
		fprintf(f, LOG_PREFIX "races so far: %" PRIu64 " reports, %u distinct\n",
			report_log_total(vm->reports), report_log_distinct(vm->reports));
	return 0;
}

#define NOT_SAMPLING "this run does not sample: sampling's knobs need --watch=sample"

/* The reply to get for sampling's knobs: one, or all of them. */
static void reply_get_sample(struct vm *vm, const struct control_cmd *cmd, FILE *reply)
{
	unsigned i;
	uint32_t v;

	for (i = 0; i < SAMPLE_KNOBS; i++) {
		if (cmd->verb == CONTROL_GET && cmd->sample_knob != &sample_knobs[i])
			continue;
		if (sample_knob_get(vm, &sample_knobs[i], &v)) {
			fprintf(reply, "error: %s\n", NOT_SAMPLING);
			return;
		}
		fprintf(reply, "%s=%" PRIu32 "\n", sample_knobs[i].name, v);
	}
	fprintf(reply, "ok\n");
}

/* The reply to get: KNOB=VALUE lines, one knob or all (a sampling run's: sampling's). */
static void reply_get(struct vm *vm, const struct control_cmd *cmd, FILE *reply)
{
	size_t i, first = 0, end = knob_count();
	uint32_t v;

	if (cmd->sample_knob || (cmd->verb == CONTROL_GET_ALL && vm->sample)) {
		reply_get_sample(vm, cmd, reply);
		return;
	}
	if (cmd->verb == CONTROL_GET) {
		first = (size_t)(cmd->knob - knob_at(0));
		end = first + 1;
	}
	for (i = first; i < end; i++) {
		if (knob_get(vm, knob_at(i), &v)) {
			fprintf(reply, "error: %s\n", NOT_ATTACHED);
			return;
		}
		fprintf(reply, "%s=%" PRIu32 "\n", knob_at(i)->name, v);
	}
	fprintf(reply, "ok\n");
}

static void reply_watch(struct vm *vm, const struct control_cmd *cmd, FILE *reply)
{
	char why[512];

	/* Sampling builds its table of sites before boot: it is chosen at start or not at all. */
	if (cmd->verb == CONTROL_WATCH_SAMPLE && !vm->watch_sample) {
		fprintf(reply,
			"error: sampling is chosen at start: run again with --watch=sample\n");
		return;
	}
	if (cmd->verb != CONTROL_WATCH_SHOW && cmd->verb != CONTROL_WATCH_SAMPLE &&
	    watch_mode_set(vm, cmd->verb == CONTROL_WATCH_HW, why, sizeof(why))) {
		fprintf(reply, "error: %s\n", why);
		return;
	}
	fprintf(reply, "watch=%s\nok\n", watch_mode_name(vm));
}

enum control_after control_run(struct vm *vm, const struct control_cmd *cmd, FILE *reply)
{
	switch (cmd->verb) {
	case CONTROL_EMPTY: break;
	case CONTROL_HELP:
		control_help(reply);
		fprintf(reply, "ok\n");
		break;
	case CONTROL_WATCH_SHOW:
	case CONTROL_WATCH_HW:
	case CONTROL_WATCH_SOFT:
	case CONTROL_WATCH_SAMPLE: reply_watch(vm, cmd, reply); break;
	case CONTROL_STATS:
		if (control_print_stats(vm, reply))
			fprintf(reply, "error: %s\n", NOT_ATTACHED);
		else
			fprintf(reply, "ok\n");
		break;
	case CONTROL_GET_ALL:
	case CONTROL_GET: reply_get(vm, cmd, reply); break;
	case CONTROL_SET:
		if (cmd->sample_knob) {
			if (sample_knob_set(vm, cmd->sample_knob, cmd->value))
				fprintf(reply, "error: %s\n", NOT_SAMPLING);
			else
				fprintf(reply, "%s=%" PRIu32 "\nok\n", cmd->sample_knob->name,
					cmd->value);
			break;
		}
		if (knob_set(vm, cmd->knob, cmd->value))
			fprintf(reply, "error: %s\n", NOT_ATTACHED);
		else
			fprintf(reply, "%s=%" PRIu32 "\nok\n", cmd->knob->name, cmd->value);
		break;
	case CONTROL_QUIT: fprintf(reply, "ok\n"); return CONTROL_END_RUN;
	}
	return CONTROL_CONTINUE;
}
