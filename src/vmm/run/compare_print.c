/* compare_print.c: the comparison of watch modes as a table on a terminal. */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "vmm/run/compare_table.h"
#include "vmm/run/compare_totals.h"
#include "watch/report_log.h"

/* What a mode that reported a race only one-sided (unknown origin) saw of the other side. */
#define UNSEEN	       "unseen"
#define MECH_NAMES_MAX 64
#define MODES_MAX      32

/* KCSAN's "BUG: KCSAN: " lead says nothing in a table of races. */
static const char *short_title(const char *title)
{
	static const char lead[] = "BUG: KCSAN: ";

	return strncmp(title, lead, sizeof(lead) - 1) == 0 ? title + sizeof(lead) - 1 : title;
}

/* What saw the other side of @hit's race, for a mode that reported it. */
static const char *seen_by(const struct compare_hit *hit, char *buf, size_t len)
{
	if (!hit->other_mechanisms)
		return UNSEEN;
	return report_log_mech_names(hit->other_mechanisms, buf, len);
}

/*
 * soft against hw, the comparison --compare was made for, keeps its
 * words ("found by both", "slowdown"); any other set names its modes.
 */
static bool soft_and_hw(unsigned shown)
{
	return shown == (COMPARE_BIT(COMPARE_SOFT) | COMPARE_BIT(COMPARE_HW));
}

static int scenario_width(const struct compare_table *t)
{
	size_t i, w = strlen("scenario");

	for (i = 0; i < t->nscenarios; i++)
		if (strlen(t->scenarios[i].name) > w)
			w = strlen(t->scenarios[i].name);
	return (int)w;
}

static int seen_by_width(const struct compare_table *t, unsigned shown)
{
	char buf[MECH_NAMES_MAX];
	size_t i, w = strlen("seen by");
	int m;

	for (i = 0; i < t->nraces; i++)
		for_each_mode (m, shown) {
			const struct compare_hit *h = &t->races[i].hit[m];

			if (h->count && strlen(seen_by(h, buf, sizeof(buf))) > w)
				w = strlen(seen_by(h, buf, sizeof(buf)));
		}
	return (int)w;
}

static void print_races(const struct compare_table *t, FILE *f, int ws, unsigned shown)
{
	int wm = seen_by_width(t, shown), m;
	char buf[MECH_NAMES_MAX];
	size_t i;

	fprintf(f, "races (per mode: reports, time to the first, what saw the other side):\n");
	fprintf(f, "  %-*s", ws, "scenario");
	for_each_mode (m, shown)
		fprintf(f, "  %6s  %8s  %-*s", compare_mode_name(m), "first", wm, "seen by");
	fprintf(f, "  race\n");
	if (!t->nraces)
		fprintf(f, "  %-*s  (no races reported in any mode)\n", ws, "-");
	for (i = 0; i < t->nraces; i++) {
		const struct compare_race *r = &t->races[i];

		fprintf(f, "  %-*s", ws, t->scenarios[r->scenario].name);
		for_each_mode (m, shown) {
			const struct compare_hit *h = &r->hit[m];

			if (h->count)
				fprintf(f, "  %6" PRIu64 "  %7.3fs  %-*s", h->count, h->first_seen,
					wm, seen_by(h, buf, sizeof(buf)));
			else
				fprintf(f, "  %6s  %8s  %-*s", "-", "-", wm, "-");
		}
		fprintf(f, "  %s\n", short_title(r->title));
	}
}

static void print_seconds(FILE *f, bool known, double s)
{
	if (known)
		fprintf(f, "  %8.2fs", s);
	else
		fprintf(f, "  %9s", "-");
}

/* The header of the slowdown column of @m against @base: "hw/soft"; "slowdown" for soft and hw
 * alone. */
static const char *slowdown_name(unsigned shown, enum compare_mode m, enum compare_mode base,
				 char *buf, size_t len)
{
	if (soft_and_hw(shown))
		return "slowdown";
	snprintf(buf, len, "%s/%s", compare_mode_name(m), compare_mode_name(base));
	return buf;
}

/* One run's slowdown columns: each mode after the first against the first, in wall time. */
static void print_run_slowdowns(FILE *f, const struct compare_scenario *s, unsigned shown)
{
	const enum compare_mode base = compare_modes_first(shown);
	const struct compare_run *b = &s->run[base];
	char name[MODES_MAX];
	int m;

	for_each_mode (m, shown) {
		const struct compare_run *r = &s->run[m];
		int w = (int)strlen(slowdown_name(shown, m, base, name, sizeof(name)));

		if (m == (int)base)
			continue;
		if (b->ran && r->ran && b->wall_s > 0)
			fprintf(f, "  %*.2fx", w - 1, r->wall_s / b->wall_s);
		else if (!soft_and_hw(shown)) /* the last column may stay empty */
			fprintf(f, "  %*s", w, "-");
	}
}

static void print_runs(const struct compare_table *t, FILE *f, int ws, unsigned shown)
{
	const enum compare_mode base = compare_modes_first(shown);
	char name[MODES_MAX];
	size_t i;
	int m;

	fprintf(f, "runs (exit status, guest result, host wall time, guest run time):\n");
	fprintf(f, "  %-*s", ws, "scenario");
	for_each_mode (m, shown)
		fprintf(f, "  %4s  %-6s  %9s  %9s", compare_mode_name(m), "result", "wall",
			"guest");
	for_each_mode (m, shown) {
		if (m != (int)base)
			fprintf(f, "  %s", slowdown_name(shown, m, base, name, sizeof(name)));
	}
	fputc('\n', f);
	for (i = 0; i < t->nscenarios; i++) {
		const struct compare_scenario *s = &t->scenarios[i];

		fprintf(f, "  %-*s", ws, s->name);
		for_each_mode (m, shown) {
			const struct compare_run *r = &s->run[m];

			if (!r->ran) {
				fprintf(f, "  %4d  %-6s  %9s  %9s", r->status, "-", "-", "-");
				continue;
			}
			fprintf(f, "  %4d  %-6s", r->status, r->result[0] ? r->result : "-");
			print_seconds(f, true, r->wall_s);
			print_seconds(f, r->has_guest_ms, (double)r->guest_ms / 1000.0);
		}
		print_run_slowdowns(f, s, shown);
		fputc('\n', f);
	}
}

/* "totals: soft: ", then "        hw:   ": the names padded to the longest shown. */
static void print_mode_totals(const struct compare_table *t, FILE *f, enum compare_mode m,
			      unsigned shown)
{
	struct compare_mode_totals s;
	int w = 0, n;

	for_each_mode (n, shown) {
		if ((int)strlen(compare_mode_name(n)) > w)
			w = (int)strlen(compare_mode_name(n));
	}
	compare_totals(t, m, &s);
	fprintf(f, "%s%s:%*s%u distinct race%s, %" PRIu64 " report%s",
		m == compare_modes_first(shown) ? "totals: " : "        ", compare_mode_name(m),
		w + 1 - (int)strlen(compare_mode_name(m)), "", s.distinct,
		s.distinct == 1 ? "" : "s", s.reports, s.reports == 1 ? "" : "s");
	if (s.own_reports)
		fprintf(f, " (and %" PRIu64 " by the kernel's own race detector, not counted)",
			s.own_reports);
	fprintf(f, ", wall %.2f s", s.wall_s);
	if (s.guest_complete)
		fprintf(f, ", guest %.2f s", (double)s.guest_ms / 1000.0);
	fputc('\n', f);
}

/* soft and hw alone: the line --compare has always printed. */
static void print_overlap_soft_hw(const struct compare_table *t, FILE *f)
{
	const unsigned soft = COMPARE_BIT(COMPARE_SOFT), hw = COMPARE_BIT(COMPARE_HW);
	unsigned one_sided = compare_found_one_sided(t);
	unsigned soft_only = compare_found_by(t, soft), hw_only = compare_found_by(t, hw);
	struct compare_slowdown sd = compare_slowdown(t, COMPARE_HW, COMPARE_SOFT);

	fprintf(f, "        found by both %u", compare_found_by(t, soft | hw));
	if (one_sided)
		fprintf(f, " (%u of them one-sided in one mode)", one_sided);
	fprintf(f, ", soft only %u, hw only %u", soft_only, hw_only);
	if (sd.wall_known)
		fprintf(f, "; hw/soft slowdown %.2fx wall", sd.wall);
	if (sd.guest_known)
		fprintf(f, ", %.2fx guest", sd.guest);
	fputc('\n', f);
}

/* Any other set: how many races each combination of modes found, then each slowdown. */
static void print_overlap(const struct compare_table *t, FILE *f, unsigned shown)
{
	const enum compare_mode base = compare_modes_first(shown);
	unsigned set = 0, one_sided = compare_found_one_sided(t);
	char names[MODES_MAX];
	const char *sep = "        found by ";
	int m;

	while (compare_subsets_next(shown, &set)) {
		fprintf(f, "%s%s%s %u", sep, compare_modes_format(set, "+", names, sizeof(names)),
			compare_modes_count(set) == 1 ? " only" : "", compare_found_by(t, set));
		sep = ", ";
	}
	if (one_sided)
		fprintf(f, " (%u of them one-sided in some mode)", one_sided);
	for_each_mode (m, shown) {
		struct compare_slowdown sd = compare_slowdown(t, m, base);

		if (m == (int)base || !sd.wall_known)
			continue;
		fprintf(f, "; %s/%s slowdown %.2fx wall", compare_mode_name(m),
			compare_mode_name(base), sd.wall);
		if (sd.guest_known)
			fprintf(f, ", %.2fx guest", sd.guest);
	}
	fputc('\n', f);
}

/* The modes asked for that this host could not run, and why. */
static void print_left_out(const struct compare_table *t, FILE *f)
{
	unsigned out = compare_table_modes(t) & ~compare_table_shown(t);
	char names[MODES_MAX];

	if (!out)
		return;
	fprintf(f, "%s mode%s not run: %s\n",
		compare_modes_format(out, " and ", names, sizeof(names)),
		compare_modes_count(out) == 1 ? "" : "s", t->hw_note);
}

void compare_table_print(const struct compare_table *t, FILE *f)
{
	const unsigned shown = compare_table_shown(t);
	int ws = scenario_width(t), m;

	fprintf(f,
		"csan-vmm --compare: seed %" PRIu64 ", timeout %u s, %u vCPU%s, %zu scenario%s\n",
		t->seed, t->timeout_s, t->cpus, t->cpus == 1 ? "" : "s", t->nscenarios,
		t->nscenarios == 1 ? "" : "s");
	print_left_out(t, f);
	print_races(t, f, ws, shown);
	print_runs(t, f, ws, shown);
	for_each_mode (m, shown)
		print_mode_totals(t, f, m, shown);
	if (soft_and_hw(shown))
		print_overlap_soft_hw(t, f);
	else if (compare_modes_count(shown) > 1)
		print_overlap(t, f, shown);
}
