/* compare_json.c: the comparison of watch modes as one JSON object (--compare-json). */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "vmm/run/compare_table.h"
#include "vmm/run/compare_totals.h"
#include "watch/report.h"
#include "watch/report_log.h"

#define MECH_NAMES_MAX 64
#define MODES_MAX      32

/* A JSON number, or null when unknown. */
static void json_number(FILE *f, bool known, double v)
{
	if (known)
		fprintf(f, "%.6f", v);
	else
		fputs("null", f);
}

static void json_modes(const struct compare_table *t, FILE *f)
{
	const char *sep = "";
	int m;

	fputs(",\"modes\":[", f);
	for_each_mode (m, compare_table_modes(t)) {
		fprintf(f, "%s\"%s\"", sep, compare_mode_name(m));
		sep = ",";
	}
	fputs("]", f);
}

static void json_runs(const struct compare_table *t, FILE *f)
{
	bool first = true;
	size_t i;
	int m;

	fputs(",\n\"runs\":[", f);
	for (i = 0; i < t->nscenarios; i++)
		for_each_mode (m, compare_table_shown(t)) {
			const struct compare_run *r = &t->scenarios[i].run[m];

			fputs(first ? "\n" : ",\n", f);
			first = false;
			fputs("{\"scenario\":", f);
			report_json_string(f, t->scenarios[i].name);
			fprintf(f, ",\"mode\":\"%s\",\"ran\":%s,\"exit_status\":%d,\"result\":",
				compare_mode_name(m), r->ran ? "true" : "false", r->status);
			report_json_string(f, r->result[0] ? r->result : NULL);
			fputs(",\"wall_s\":", f);
			json_number(f, r->ran, r->wall_s);
			fputs(",\"guest_s\":", f);
			json_number(f, r->ran && r->has_guest_ms, (double)r->guest_ms / 1000.0);
			fprintf(f, ",\"reports\":%" PRIu64, r->reports);
			if (m == COMPARE_SAMPLE)
				fprintf(f, ",\"own_reports\":%" PRIu64, r->own_reports);
			fputs("}", f);
		}
	fputs("]", f);
}

static void json_hit(const struct compare_table *t, FILE *f, enum compare_mode m,
		     const struct compare_hit *h)
{
	char buf[MECH_NAMES_MAX];

	fprintf(f, ",\"%s\":", compare_mode_name(m));
	if (!h->count || !(compare_table_shown(t) & COMPARE_BIT(m))) {
		fputs("null", f);
		return;
	}
	fprintf(f, "{\"count\":%" PRIu64 ",\"first_seen\":%.6f,\"other_side_seen_by\":", h->count,
		h->first_seen);
	report_json_string(f, h->other_mechanisms
				      ? report_log_mech_names(h->other_mechanisms, buf, sizeof(buf))
				      : "unseen");
	if (h->reported_as) {
		fputs(",\"reported_as\":", f);
		report_json_string(f, h->reported_as);
	}
	fputs("}", f);
}

static void json_races(const struct compare_table *t, FILE *f)
{
	size_t i;
	int m;

	fputs(",\n\"races\":[", f);
	for (i = 0; i < t->nraces; i++) {
		const struct compare_race *r = &t->races[i];

		fputs(i ? ",\n{\"scenario\":" : "\n{\"scenario\":", f);
		report_json_string(f, t->scenarios[r->scenario].name);
		fputs(",\"signature\":", f);
		report_json_string(f, r->signature);
		fputs(",\"title\":", f);
		report_json_string(f, r->title);
		for_each_mode (m, compare_table_modes(t))
			json_hit(t, f, (enum compare_mode)m, &r->hit[m]);
		fputs("}", f);
	}
	fputs("]", f);
}

/* "NAME":{...} of one mode's totals, or "NAME":null for a mode not run. */
static void json_mode_totals(const struct compare_table *t, FILE *f, enum compare_mode m)
{
	struct compare_mode_totals s;

	fprintf(f, "\"%s\":", compare_mode_name(m));
	if (!(compare_table_shown(t) & COMPARE_BIT(m))) {
		fputs("null", f);
		return;
	}
	compare_totals(t, m, &s);
	fprintf(f, "{\"distinct\":%u,\"reports\":%" PRIu64 ",", s.distinct, s.reports);
	if (m == COMPARE_SAMPLE)
		fprintf(f, "\"own_reports\":%" PRIu64 ",", s.own_reports);
	fprintf(f, "\"wall_s\":%.6f,\"guest_s\":", s.wall_s);
	json_number(f, s.guest_complete, (double)s.guest_ms / 1000.0);
	fputs("}", f);
}

/* soft and hw asked for: the keys --compare-json has always had. */
static void json_overlap_soft_hw(const struct compare_table *t, FILE *f)
{
	const unsigned soft = COMPARE_BIT(COMPARE_SOFT), hw = COMPARE_BIT(COMPARE_HW);
	struct compare_slowdown sd = compare_slowdown(t, COMPARE_HW, COMPARE_SOFT);

	if (!t->hw_available) {
		fputs(",\"both\":null,\"both_one_sided\":null,\"soft_only\":null,"
		      "\"hw_only\":null,\"slowdown_wall\":null,\"slowdown_guest\":null",
		      f);
		return;
	}
	fprintf(f,
		",\"both\":%u,\"both_one_sided\":%u,\"soft_only\":%u,\"hw_only\":%u,"
		"\"slowdown_wall\":",
		compare_found_by(t, soft | hw), compare_found_one_sided(t),
		compare_found_by(t, soft), compare_found_by(t, hw));
	json_number(f, sd.wall_known, sd.wall);
	fputs(",\"slowdown_guest\":", f);
	json_number(f, sd.guest_known, sd.guest);
}

/* Any other set: races per combination of the modes run, and each mode's slowdown against the
 * first. */
static void json_overlap(const struct compare_table *t, FILE *f)
{
	const unsigned shown = compare_table_shown(t);
	const enum compare_mode base = compare_modes_first(shown);
	const char *sep = "";
	char names[MODES_MAX];
	unsigned set = 0;
	int m;

	fputs(",\"found_by\":{", f);
	while (compare_subsets_next(shown, &set)) {
		fprintf(f, "%s\"%s\":%u", sep, compare_modes_format(set, "+", names, sizeof(names)),
			compare_found_by(t, set));
		sep = ",";
	}
	fprintf(f, "},\"one_sided\":%u,\"slowdown\":{", compare_found_one_sided(t));
	sep = "";
	for_each_mode (m, shown) {
		struct compare_slowdown sd = compare_slowdown(t, m, base);

		if (m == (int)base)
			continue;
		fprintf(f, "%s\"%s/%s\":{\"wall\":", sep, compare_mode_name(m),
			compare_mode_name(base));
		json_number(f, sd.wall_known, sd.wall);
		fputs(",\"guest\":", f);
		json_number(f, sd.guest_known, sd.guest);
		fputs("}", f);
		sep = ",";
	}
	fputs("}", f);
}

static void json_totals(const struct compare_table *t, FILE *f)
{
	const unsigned asked = compare_table_modes(t);
	const char *sep = "";
	int m;

	fputs(",\n\"totals\":{", f);
	for_each_mode (m, asked) {
		fputs(sep, f);
		json_mode_totals(t, f, m);
		sep = ",";
	}
	if (asked == COMPARE_DEFAULT_MODES)
		json_overlap_soft_hw(t, f);
	else
		json_overlap(t, f);
	fputs("}", f);
}

void compare_table_json(const struct compare_table *t, FILE *f)
{
	fprintf(f,
		"{\"type\":\"compare\",\"seed\":%" PRIu64 ",\"timeout_s\":%u,\"cpus\":%u,"
		"\"hw_available\":%s,\"hw_note\":",
		t->seed, t->timeout_s, t->cpus, t->hw_available ? "true" : "false");
	report_json_string(f, t->hw_available ? NULL : t->hw_note);
	json_modes(t, f);
	json_runs(t, f);
	json_races(t, f);
	json_totals(t, f);
	fprintf(f, ",\n\"exit_status\":%d}\n", compare_exit_status(t));
}
