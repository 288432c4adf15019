/* test-control.c: the control protocol's parser and commands, knob lookups, escape keys. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "csan/abi.h"
#include "vmm/run/control_cmd.h"
#include "vmm/sample/sampler.h"
#include "vmm/console/escape.h"
#include "vmm/guest/csan/csan_profile.h"
#include "vmm/guest/csan/csan_state.h"
#include "vmm/guest/csan/hc_attach.h"
#include "vmm/guest/csan/knob.h"
#include "vmm/guest/profile.h"
#include "vmm/kvm/vm.h"
#include "vmm/hwwatch/watch_mode.h"
#include "check.h"

static void test_knob_table(void)
{
	const struct knob *k;
	uint32_t v;

	/* The same list and ranges as the guest's (abi.h), in its order. */
	CHECK_EQ_U64(knob_count(), 8);
	CHECK(strcmp(knob_at(0)->name, "enabled") == 0);
	CHECK(knob_at(knob_count()) == NULL);
	k = knob_find("skip_watch");
	CHECK(k && k->offset == offsetof(struct csan_control, skip_watch) && k->max == UINT32_MAX);
	k = knob_find("udelay_task");
	CHECK(k && k->max == CSAN_KNOB_UDELAY_MAX);
	CHECK(knob_find("report_unknown_origin") != NULL);
	CHECK(knob_find("watch_hw") == NULL); /* the host's, not a knob */
	CHECK(knob_find("skip") == NULL && knob_find("") == NULL);

	k = knob_find("enabled");
	CHECK(knob_parse_value(k, "1", &v) == 0 && v == 1);
	CHECK(knob_parse_value(k, "n", &v) == 0 && v == 0);
	CHECK(knob_parse_value(k, "Y", &v) == 0 && v == 1);
	CHECK(knob_parse_value(k, "2", &v) == -ERANGE);
	k = knob_find("skip_watch");
	CHECK(knob_parse_value(k, "0x10", &v) == 0 && v == 16);
	CHECK(knob_parse_value(k, "4294967295", &v) == 0 && v == UINT32_MAX);
	CHECK(knob_parse_value(k, "4294967296", &v) == -ERANGE);
	CHECK(knob_parse_value(k, "99999999999999999999999", &v) == -ERANGE);
	CHECK(knob_parse_value(k, "-1", &v) == -EINVAL);
	CHECK(knob_parse_value(k, " 1", &v) == -EINVAL);
	CHECK(knob_parse_value(k, "010", &v) == -EINVAL); /* octal or decimal? refused */
	CHECK(knob_parse_value(k, "12x", &v) == -EINVAL);
	CHECK(knob_parse_value(k, "0x", &v) == -EINVAL);
	CHECK(knob_parse_value(k, "", &v) == -EINVAL);
}

static void test_parse(void)
{
	struct control_cmd c;
	char why[256], line[CONTROL_LINE_MAX + 2];

	CHECK(control_parse("", &c, why, sizeof(why)) == 0 && c.verb == CONTROL_EMPTY);
	CHECK(control_parse(" \t\r", &c, why, sizeof(why)) == 0 && c.verb == CONTROL_EMPTY);
	CHECK(control_parse("watch", &c, why, sizeof(why)) == 0 && c.verb == CONTROL_WATCH_SHOW);
	CHECK(control_parse("watch hw", &c, why, sizeof(why)) == 0 && c.verb == CONTROL_WATCH_HW);
	CHECK(control_parse("  watch\tsoft\r", &c, why, sizeof(why)) == 0 &&
	      c.verb == CONTROL_WATCH_SOFT);
	CHECK(control_parse("watch sample", &c, why, sizeof(why)) == 0 &&
	      c.verb == CONTROL_WATCH_SAMPLE);
	CHECK(control_parse("stats", &c, why, sizeof(why)) == 0 && c.verb == CONTROL_STATS);
	CHECK(control_parse("help", &c, why, sizeof(why)) == 0 && c.verb == CONTROL_HELP);
	CHECK(control_parse("quit", &c, why, sizeof(why)) == 0 && c.verb == CONTROL_QUIT);
	CHECK(control_parse("get", &c, why, sizeof(why)) == 0 && c.verb == CONTROL_GET_ALL);
	CHECK(control_parse("get skip_watch", &c, why, sizeof(why)) == 0 && c.verb == CONTROL_GET &&
	      c.knob == knob_find("skip_watch"));
	CHECK(control_parse("set udelay_task 0x20", &c, why, sizeof(why)) == 0 &&
	      c.verb == CONTROL_SET && c.knob == knob_find("udelay_task") && c.value == 32);

	/* Sampling's knobs, by the ranges of --sample-*. */
	CHECK(control_parse("set sample_delay_ms 10", &c, why, sizeof(why)) == 0 &&
	      c.verb == CONTROL_SET && !c.knob &&
	      c.sample_knob == sample_knob_find("sample_delay_ms") && c.value == 10);
	CHECK(control_parse("get sample_period_ms", &c, why, sizeof(why)) == 0 &&
	      c.verb == CONTROL_GET && c.sample_knob == &sample_knobs[SAMPLE_KNOB_PERIOD_MS]);
	CHECK(control_parse("set sample_breakpoints 3", &c, why, sizeof(why)) == 0 && c.value == 3);
	CHECK(control_parse("set sample_breakpoints 4", &c, why, sizeof(why)) == -EINVAL);
	CHECK_CONTAINS(why, "sample_breakpoints: '4' is not a number from 1 to 3");
	CHECK(control_parse("set sample_period_ms 0", &c, why, sizeof(why)) == -EINVAL);
	CHECK_CONTAINS(why, "from 1 to 60000");
	CHECK(control_parse("set sample_delay_ms 1001", &c, why, sizeof(why)) == -EINVAL);
	CHECK(control_parse("set sample_delay_ms -1", &c, why, sizeof(why)) == -EINVAL);
	CHECK(control_parse("set sample_delay_ms 1000", &c, why, sizeof(why)) == 0 &&
	      c.value == 1000);

	CHECK(control_parse("watch both", &c, why, sizeof(why)) == -EINVAL);
	CHECK_CONTAINS(why, "usage: watch [hw|soft|sample]");
	CHECK(control_parse("frob", &c, why, sizeof(why)) == -EINVAL);
	CHECK_CONTAINS(why, "unknown command 'frob'");
	CHECK(control_parse("stats now", &c, why, sizeof(why)) == -EINVAL);
	CHECK_CONTAINS(why, "'stats' takes no arguments");
	CHECK(control_parse("get nope", &c, why, sizeof(why)) == -EINVAL);
	CHECK_CONTAINS(why, "no knob 'nope'");
	CHECK(control_parse("get a b", &c, why, sizeof(why)) == -EINVAL);
	CHECK(control_parse("set skip_watch", &c, why, sizeof(why)) == -EINVAL);
	CHECK_CONTAINS(why, "usage: set KNOB VALUE");
	CHECK(control_parse("set skip_watch 1 2", &c, why, sizeof(why)) == -EINVAL);
	CHECK(control_parse("set enabled 2", &c, why, sizeof(why)) == -EINVAL);
	CHECK_CONTAINS(why, "enabled: '2' is out of range: give 0 to 1 (or y/n)");
	CHECK(control_parse("set udelay_task many", &c, why, sizeof(why)) == -EINVAL);
	CHECK_CONTAINS(why, "'many' is not a number: give 0 to 1000000");

	memset(line, 'a', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	CHECK(control_parse(line, &c, why, sizeof(why)) == -EINVAL);
	CHECK_CONTAINS(why, "line longer than 256 bytes");
}

/* Run @line on @vm and return its reply (static buffer). */
static const char *run(struct vm *vm, const char *line, enum control_after *after)
{
	static char reply[2048];
	struct control_cmd c;
	char why[256];
	FILE *f = fmemopen(reply, sizeof(reply), "w");

	if (control_parse(line, &c, why, sizeof(why)))
		fprintf(f, "error: %s\n", why);
	else
		*after = control_run(vm, &c, f);
	fclose(f);
	return reply;
}

static void test_commands(void)
{
	static struct csan_control block __attribute__((aligned(64))) = {
		.magic = CSAN_CONTROL_MAGIC,
		.size = sizeof(struct csan_control),
		.ncounters = CSAN_COUNTER_MAX,
		.skip_watch = 4000,
		.counters = { [CSAN_COUNTER_SETUP_WATCHPOINTS] = 7 },
	};
	struct vm *vm = vm_new(&(struct vm_config){ .ncpus = 1 });
	enum control_after after = CONTROL_CONTINUE;
	char why[512];

	if (!vm)
		return;
	/* The csan profile's state and hooks, as its setup and guest_run give them. */
	CHECK(csan_hypercalls_attach(vm, why, sizeof(why)) == 0);
	vm->watch_mode_changed = csan_profile.watch_changed;
	/* As guest_run does when its caller probed: hw mode runs here. */
	vm->hw_probed = true;

	/* Before the guest attaches: the mode is kept, knobs cannot be reached. */
	CHECK_CONTAINS(run(vm, "get skip_watch", &after),
		       "error: the guest runtime has not attached");
	CHECK_CONTAINS(run(vm, "set skip_watch 5", &after),
		       "error: the guest runtime has not attached");
	CHECK_CONTAINS(run(vm, "stats", &after), "error: the guest runtime has not attached");
	CHECK(strcmp(run(vm, "watch hw", &after), "watch=hw\nok\n") == 0);
	CHECK(watch_mode_hw(vm) && block.watch_hw == 0);

	/* Attach as hc_attach does: the mode chosen earlier reaches the block. */
	csan_state(vm)->control = &block;
	csan_state(vm)->control_ncounters = CSAN_COUNTER_MAX;
	csan_state(vm)->control_size = sizeof(block);
	csan_publish_watch_mode(vm);
	CHECK_EQ_U64(block.watch_hw, 1);
	CHECK(strcmp(run(vm, "watch soft", &after), "watch=soft\nok\n") == 0);
	CHECK_EQ_U64(block.watch_hw, 0);
	CHECK(strcmp(run(vm, "watch", &after), "watch=soft\nok\n") == 0);

	CHECK(strcmp(run(vm, "get skip_watch", &after), "skip_watch=4000\nok\n") == 0);
	CHECK(strcmp(run(vm, "set skip_watch 100", &after), "skip_watch=100\nok\n") == 0);
	CHECK_EQ_U64(block.skip_watch, 100);
	CHECK_CONTAINS(run(vm, "get", &after), "enabled=0\nskip_watch=100\nudelay_task=0\n");
	CHECK_CONTAINS(run(vm, "get", &after), "report_unknown_origin=0\nok\n");
	CHECK_CONTAINS(run(vm, "stats", &after), "csan-vmm: counters: used_watchpoints=0 "
						 "setup_watchpoints=7 ");
	CHECK_CONTAINS(run(vm, "help", &after), "set KNOB VALUE");
	CHECK_CONTAINS(run(vm, "set enabled 3", &after), "error: enabled: '3' is out of range");
	/* Sampling's words, in a run that does not sample. */
	CHECK_CONTAINS(run(vm, "get sample_delay_ms", &after), "error: this run does not sample");
	CHECK_CONTAINS(run(vm, "set sample_delay_ms 9", &after), "error: this run does not sample");
	CHECK_CONTAINS(run(vm, "watch sample", &after),
		       "error: sampling is chosen at start: run again with --watch=sample");
	CHECK(after == CONTROL_CONTINUE);
	CHECK(strcmp(run(vm, "quit", &after), "ok\n") == 0);
	CHECK(after == CONTROL_END_RUN);

	/* A host without data watchpoints refuses hw mode and stays soft. */
	strcpy(vm->hw_unavailable, "data watchpoints never fire under this KVM");
	CHECK(watch_mode_set(vm, true, why, sizeof(why)) == -ENOTSUP);
	CHECK_CONTAINS(why, "hardware watchpoints are unavailable on this host: data watchpoints "
			    "never fire");
	CHECK(!watch_mode_hw(vm) && block.watch_hw == 0);
	CHECK_CONTAINS(run(vm, "watch hw", &after), "error: hardware watchpoints are unavailable");
	CHECK(watch_mode_set(vm, false, why, sizeof(why)) == 0);

	/* A block too short to hold watch_hw is never written past its end. */
	csan_state(vm)->control_size = offsetof(struct csan_control, watch_hw);
	vm->hw_unavailable[0] = '\0';
	CHECK(watch_mode_set(vm, true, why, sizeof(why)) == 0);
	CHECK(watch_mode_hw(vm) && block.watch_hw == 0);
	vm_destroy(vm);
}

/* A sampling run: its mode, its knobs, its counters; hw and soft refused. */
static void test_sampling(void)
{
	struct vm *vm = vm_new(&(struct vm_config){ .ncpus = 1 });
	struct sampler sp = {
		.o = { .breakpoints = 2, .delay_ms = 5, .period_ms = 20 },
		.sites = 152389,
		.n = { .hits = 12, .watches = 9, .trapped = 2, .reports = 2 },
	};
	enum control_after after = CONTROL_CONTINUE;

	if (!vm)
		return;
	pthread_mutex_init(&sp.lock, NULL);
	sp.vm = vm;
	vm->sample = &sp;
	vm->watch_sample = true;
	CHECK(strcmp(run(vm, "watch", &after), "watch=sample\nok\n") == 0);
	CHECK(strcmp(run(vm, "watch sample", &after), "watch=sample\nok\n") == 0);
	CHECK_CONTAINS(run(vm, "watch hw", &after),
		       "error: this run samples (--watch=sample) from start to end; run again with "
		       "--watch=hw");
	CHECK(strcmp(run(vm, "get", &after),
		     "sample_breakpoints=2\nsample_delay_ms=5\nsample_period_ms=20\nsample_paused=0\nok\n") ==
	      0);
	/* Pausing is a knob of 0 or 1; the draw's tick does the rest. */
	CHECK(strcmp(run(vm, "set sample_paused 1", &after), "sample_paused=1\nok\n") == 0);
	CHECK_EQ_U64(sp.o.paused, 1);
	CHECK_CONTAINS(run(vm, "set sample_paused 2", &after),
		       "sample_paused: '2' is not a number from 0 to 1");
	CHECK(strcmp(run(vm, "set sample_paused 0", &after), "sample_paused=0\nok\n") == 0);
	CHECK_EQ_U64(sp.o.paused, 0);
	CHECK(strcmp(run(vm, "set sample_delay_ms 12", &after), "sample_delay_ms=12\nok\n") == 0);
	CHECK_EQ_U64(sp.o.delay_ms, 12);
	CHECK(strcmp(run(vm, "get sample_delay_ms", &after), "sample_delay_ms=12\nok\n") == 0);
	CHECK_CONTAINS(
		run(vm, "stats", &after),
		"csan-vmm: sampling: 152389 sites in the table, 0 code breakpoints armed, 12 "
		"hits;");
	CHECK_CONTAINS(run(vm, "stats", &after), "; 9 data watches, 2 trapped another access");
	CHECK(after == CONTROL_CONTINUE);
	vm->sample = NULL;
	pthread_mutex_destroy(&sp.lock);
	vm_destroy(vm);
}

static void test_escape(void)
{
	struct escape_state st = { 0 };
	uint8_t in = 0;

	CHECK(escape_feed(&st, 'a', &in) == ESCAPE_INPUT && in == 'a');
	CHECK(escape_feed(&st, ESCAPE_CHAR, &in) == ESCAPE_NONE);
	CHECK(escape_feed(&st, 'h', &in) == ESCAPE_HELP);
	CHECK(escape_feed(&st, 'h', &in) == ESCAPE_INPUT && in == 'h'); /* escape is over */
	CHECK(escape_feed(&st, ESCAPE_CHAR, &in) == ESCAPE_NONE);
	CHECK(escape_feed(&st, 'w', &in) == ESCAPE_WATCH);
	CHECK(escape_feed(&st, ESCAPE_CHAR, &in) == ESCAPE_NONE);
	CHECK(escape_feed(&st, 's', &in) == ESCAPE_STATS);
	CHECK(escape_feed(&st, ESCAPE_CHAR, &in) == ESCAPE_NONE);
	CHECK(escape_feed(&st, 'x', &in) == ESCAPE_QUIT);
	CHECK(escape_feed(&st, ESCAPE_CHAR, &in) == ESCAPE_NONE);
	CHECK(escape_feed(&st, ESCAPE_CHAR, &in) == ESCAPE_INPUT && in == ESCAPE_CHAR);
	CHECK(escape_feed(&st, 'x', &in) == ESCAPE_INPUT && in == 'x'); /* a literal C-a, then x */
	CHECK(escape_feed(&st, ESCAPE_CHAR, &in) == ESCAPE_NONE);
	CHECK(escape_feed(&st, 'q', &in) == ESCAPE_UNKNOWN);
	CHECK(escape_feed(&st, 'q', &in) == ESCAPE_INPUT && in == 'q');
}

int main(void)
{
	test_knob_table();
	test_parse();
	test_commands();
	test_sampling();
	test_escape();
	return check_exit_status("test-control");
}
