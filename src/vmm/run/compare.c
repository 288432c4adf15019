/* compare.c: csan-vmm --compare: the same guest in soft and in hw mode (and sampled, when asked).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csan/abi.h"
#include "vmm/base/log.h"
#include "vmm/run/compare.h"
#include "vmm/run/compare_table.h"
#include "vmm/image/elf_guest.h"
#include "vmm/base/exit_status.h"
#include "vmm/run/guest_run.h"
#include "vmm/run/options.h"
#include "vmm/run/verdict.h"
#include "vmm/run/workload_run.h"
#include "vmm/kvm/probe.h"
#include "vmm/guest/profile.h"
#include "watch/report_log.h"

/* The two output files, opened before any run so a bad path costs no guest time. */
struct compare_files {
	FILE *report_json;
	FILE *compare_json;
};

static FILE *open_output(const char *option, const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		log_error_errno(errno, "%s: cannot write %s", option, path);
	return f;
}

static int files_open(struct compare_files *cf, const struct options *o)
{
	memset(cf, 0, sizeof(*cf));
	if (o->report_json && !(cf->report_json = open_output("--report-json", o->report_json)))
		return -errno;
	if (o->compare_json && !(cf->compare_json = open_output("--compare-json", o->compare_json)))
		return -errno;
	return 0;
}

static void files_close(struct compare_files *cf)
{
	if (cf->report_json && fclose(cf->report_json))
		log_error_errno(errno, "--report-json");
	if (cf->compare_json && fclose(cf->compare_json))
		log_error_errno(errno, "--compare-json");
}

/* The scenarios to compare: one (as a normal run picks it) or, for "all", every listed one. */
static int add_scenarios(struct compare_table *t, const struct options *o,
			 const struct elf_guest *g)
{
	const char *name;
	size_t i;

	if (!o->scenario || strcmp(o->scenario, OPT_ALL_SCENARIOS)) {
		if (guest_run_pick_scenario(o, g, &name))
			return -ENOENT;
		return compare_table_add_scenario(t, name) < 0 ? -ENOMEM : 0;
	}
	if (!g->nscenarios) {
		log_error("--scenario=all: %s has no scenario table (section " CSAN_SCENARIO_SECTION
			  "); name no scenario, or use the bundled guest",
			  g->path);
		return -ENOENT;
	}
	for (i = 0; i < g->nscenarios; i++)
		if (!(g->scenarios[i].flags & CSAN_SCENARIO_TEST_ONLY) &&
		    compare_table_add_scenario(t, g->scenarios[i].name) < 0)
			return -ENOMEM;
	return 0;
}

struct add_ctx {
	struct compare_table *t;
	size_t scenario;
	enum compare_mode mode;
};

static int add_one_race(const struct report_log_race *race, void *ctx)
{
	struct add_ctx *a = ctx;

	return compare_table_add_race(a->t, a->scenario, a->mode, race);
}

/*
 * One scenario in one mode, its findings into @t.  @initrd: --run's
 * initramfs (or --initrd's), built once so that every mode boots the same
 * bytes.  Returns the run's exit status.
 */
static int run_one(struct compare_table *t, size_t si, enum compare_mode mode,
		   const struct options *o, struct elf_guest *g, FILE *report_json,
		   const struct boot_initrd *initrd)
{
	struct compare_scenario *s = &t->scenarios[si];
	struct compare_run *run = &s->run[mode];
	struct add_ctx ctx = { t, si, mode };
	struct guest_run_opts ro = {
		.o = o,
		.scenario = strcmp(s->name, COMPARE_DEFAULT_SCENARIO) ? s->name : NULL,
		.watch_hw = mode == COMPARE_HW,
		.watch_sample = mode == COMPARE_SAMPLE,
		.hw_known = true,
		.hw_unavailable = t->hw_available ? NULL : t->hw_note,
		.report_json = report_json,
		.initrd = *initrd,
	};
	struct guest_run_result res;

	if (!o->quiet)
		log_error("--compare: scenario %s in %s mode", s->name, compare_mode_name(mode));
	run->status = guest_run(g, &ro, &res);
	run->ran = res.ran;
	run->wall_s = res.wall_s;
	if (res.log) {
		run->reports = report_log_total(res.log);
		if (report_log_races(res.log, add_one_race, &ctx))
			log_error("--compare: out of memory; the table misses races of %s",
				  s->name);
	}
	compare_parse_result_line(res.result_line, run);
	guest_run_result_free(&res);
	return run->status;
}

int compare_check(const struct options *o, const struct elf_guest *g)
{
	const unsigned others = o->compare_modes & ~COMPARE_BIT(COMPARE_SAMPLE);
	const struct guest_profile *prof;
	char why[256], modes[32], rest[32];

	if (!(o->compare_modes & COMPARE_BIT(COMPARE_SAMPLE)))
		return 0;
	compare_modes_format(o->compare_modes, ",", modes, sizeof(modes));
	/* A profile that cannot be picked is said by the run, as without sampling. */
	prof = guest_profile_pick(g, o->guest_kind, why, sizeof(why));
	if (prof && prof != &linux_profile) {
		log_error("--compare=%s: sampling is for a Linux kernel; the %s guest %s has soft "
			  "watchpoints of its own: --compare=%s",
			  modes, prof->name, g->path,
			  compare_modes_format(others ? others : COMPARE_DEFAULT_MODES, ",", rest,
					       sizeof(rest)));
		return -EINVAL;
	}
	if (prof && !g->sym_path) {
		log_error("--compare=%s: sampling draws its sites from the kernel's vmlinux, and "
			  "%s has none: give --vmlinux=PATH",
			  modes, g->path);
		return -EINVAL;
	}
	return 0;
}

/* Which modes run here: said on stderr when hw and sample must be left out. */
static int pick_modes(struct compare_table *t)
{
	unsigned out;
	char names[32];

	t->hw_available = probe_data_watchpoints(t->hw_note, sizeof(t->hw_note)) == 1;
	out = compare_table_modes(t) & ~compare_table_shown(t);
	if (!out)
		return 0;
	if (!compare_table_shown(t)) {
		log_error("--compare: nothing to run here: %s", t->hw_note);
		return -ENOTSUP;
	}
	compare_modes_format(out, " and ", names, sizeof(names));
	log_error("--compare: %s mode%s left out, soft mode only: %s", names,
		  compare_modes_count(out) == 1 ? "" : "s", t->hw_note);
	return 0;
}

int compare_run(const struct options *o, struct elf_guest *g)
{
	struct compare_table t = {
		.seed = o->seed,
		.timeout_s = o->timeout_s,
		.cpus = o->cpus,
		.modes = o->compare_modes,
	};
	struct compare_files cf = { 0 };
	struct boot_initrd initrd = { 0 };
	uint8_t *initrd_data = NULL;
	int status = EXIT_USAGE, m;
	size_t i;

	if (compare_check(o, g) || add_scenarios(&t, o, g) || files_open(&cf, o) ||
	    pick_modes(&t) || workload_run_build(o, &initrd_data, &initrd.len))
		goto out;
	initrd.data = initrd_data;
	for (i = 0; i < t.nscenarios; i++)
		for_each_mode (m, compare_table_shown(&t)) {
			if (run_one(&t, i, (enum compare_mode)m, o, g, cf.report_json, &initrd) ==
			    EXIT_INTERRUPTED)
				goto stopped;
		}
stopped:
	if (compare_table_pair_one_sided(&t))
		log_error("--compare: out of memory; one-sided reports are not paired with the "
			  "races the other mode named");
	fflush(stdout);
	compare_table_print(&t, stdout);
	fflush(stdout);
	if (cf.compare_json)
		compare_table_json(&t, cf.compare_json);
	status = compare_exit_status(&t);
	/* Each run said its own; this is the one a CI log's last line should hold. */
	log_error("exit status %d (%s): the most serious of --compare's runs", status,
		  verdict_word(status));
out:
	free(initrd_data);
	files_close(&cf);
	compare_table_free(&t);
	return status;
}
