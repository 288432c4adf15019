/* compare_table.c: the soft-against-hw comparison: what each mode found, printed. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "vmm/run/compare_table.h"
#include "vmm/base/exit_status.h"
#include "vmm/run/verdict.h"
#include "watch/report.h"
#include "watch/report_log.h"

static const char *const mode_name[COMPARE_NMODES] = {
	[COMPARE_SOFT] = "soft",
	[COMPARE_HW] = "hw",
};

/* What a mode that reported a race only one-sided (unknown origin) saw of the other side. */
#define UNSEEN	       "unseen"
#define MECH_NAMES_MAX 64

void compare_table_free(struct compare_table *t)
{
	size_t i;
	int m;

	for (i = 0; i < t->nscenarios; i++)
		free(t->scenarios[i].name);
	for (i = 0; i < t->nraces; i++) {
		free(t->races[i].signature);
		free(t->races[i].title);
		for (m = 0; m < COMPARE_NMODES; m++)
			free(t->races[i].hit[m].reported_as);
	}
	free(t->scenarios);
	free(t->races);
	t->scenarios = NULL;
	t->races = NULL;
	t->nscenarios = t->nraces = 0;
}

int compare_table_add_scenario(struct compare_table *t, const char *name)
{
	struct compare_scenario *p = realloc(t->scenarios, (t->nscenarios + 1) * sizeof(*p));

	if (!p)
		return -ENOMEM;
	t->scenarios = p;
	p = &t->scenarios[t->nscenarios];
	memset(p, 0, sizeof(*p));
	p->name = strdup(name ? name : COMPARE_DEFAULT_SCENARIO);
	if (!p->name)
		return -ENOMEM;
	return (int)t->nscenarios++;
}

static struct compare_race *find_race(struct compare_table *t, size_t scenario, const char *sig)
{
	size_t i;

	for (i = 0; i < t->nraces; i++)
		if (t->races[i].scenario == scenario && strcmp(t->races[i].signature, sig) == 0)
			return &t->races[i];
	return NULL;
}

int compare_table_add_race(struct compare_table *t, size_t scenario, enum compare_mode mode,
			   const struct report_log_race *race)
{
	struct compare_race *row = find_race(t, scenario, race->signature);

	if (!row) {
		struct compare_race *p = realloc(t->races, (t->nraces + 1) * sizeof(*p));

		if (!p)
			return -ENOMEM;
		t->races = p;
		row = &t->races[t->nraces];
		memset(row, 0, sizeof(*row));
		row->scenario = scenario;
		row->signature = strdup(race->signature);
		row->title = strdup(race->title);
		if (!row->signature || !row->title) {
			free(row->signature);
			free(row->title);
			return -ENOMEM;
		}
		t->nraces++;
	}
	row->hit[mode] = (struct compare_hit){
		.count = race->count,
		.first_seen = race->first_seen,
		.other_mechanisms = race->other_mechanisms,
	};
	return 0;
}

/* The function name of a one-sided signature ("unknown-origin:f"), or NULL. */
static const char *one_sided_name(const char *sig)
{
	static const char lead[] = "unknown-origin:";

	return strncmp(sig, lead, sizeof(lead) - 1) == 0 ? sig + sizeof(lead) - 1 : NULL;
}

/* Whether two-sided @sig ("kind:a/b") names @fn on either side. */
static bool names_side(const char *sig, const char *fn)
{
	const char *a = strchr(sig, ':'), *b;
	size_t n = strlen(fn);

	if (!a || !(b = strchr(++a, '/')))
		return false;
	b++;
	return ((size_t)(b - 1 - a) == n && strncmp(a, fn, n) == 0) || strcmp(b, fn) == 0;
}

/* The only two-sided row of @one's scenario naming @fn seen by @m alone, or NULL. */
static struct compare_race *pair_for(struct compare_table *t, const struct compare_race *one,
				     const char *fn, enum compare_mode m)
{
	struct compare_race *found = NULL;
	size_t i;
	int o;

	for (i = 0; i < t->nraces; i++) {
		struct compare_race *r = &t->races[i];
		bool alone = r->hit[m].count != 0;

		for (o = 0; o < COMPARE_NMODES; o++)
			alone &= o == (int)m || r->hit[o].count == 0;
		if (r == one || r->scenario != one->scenario || !alone ||
		    !names_side(r->signature, fn))
			continue;
		if (found)
			return NULL; /* @fn raced with more than one: which the one-sided report saw
					is unknown */
		found = r;
	}
	return found;
}

int compare_table_pair_one_sided(struct compare_table *t)
{
	size_t i, kept = 0;
	int m, rc = 0;

	for (i = 0; i < t->nraces; i++) {
		struct compare_race *one = &t->races[i], *two;
		const char *fn = one_sided_name(one->signature);
		const bool soft = one->hit[COMPARE_SOFT].count, hw = one->hit[COMPARE_HW].count;
		const enum compare_mode o = soft ? COMPARE_SOFT : COMPARE_HW;
		char *as;

		if (!fn || soft == hw ||
		    !(two = pair_for(t, one, fn, o == COMPARE_SOFT ? COMPARE_HW : COMPARE_SOFT)))
			continue;
		as = strdup(one->signature);
		if (!as) {
			rc = -ENOMEM; /* the rest stay unpaired */
			break;
		}
		two->hit[o] = one->hit[o];
		two->hit[o].reported_as = as;
		one->hit[o] = (struct compare_hit){ 0 };
	}
	/* Rows left with no hit in any mode go, the order kept. */
	for (i = 0; i < t->nraces; i++) {
		struct compare_race *r = &t->races[i];
		bool any = false;

		for (m = 0; m < COMPARE_NMODES; m++)
			any |= r->hit[m].count != 0;
		if (!any) {
			free(r->signature);
			free(r->title);
			continue;
		}
		t->races[kept++] = *r;
	}
	t->nraces = kept;
	return rc;
}

/* The value of " key=" in @line into @buf; false when absent. */
static bool result_field(const char *line, const char *key, char *buf, size_t len)
{
	size_t klen = strlen(key);
	const char *p = line;

	while ((p = strstr(p, key))) {
		if ((p == line || p[-1] == ' ') && p[klen] == '=') {
			size_t n = strcspn(p + klen + 1, " ");

			if (n >= len)
				n = len - 1;
			memcpy(buf, p + klen + 1, n);
			buf[n] = '\0';
			return true;
		}
		p += klen;
	}
	return false;
}

int compare_parse_result_line(const char *line, struct compare_run *run)
{
	static const char prefix[] = "csan-result: ";
	char status[sizeof(run->result)], val[32], *end;
	unsigned long long ms;

	if (strncmp(line, prefix, sizeof(prefix) - 1) ||
	    !result_field(line, "status", status, sizeof(status)))
		return -EINVAL;
	memcpy(run->result, status, sizeof(status));
	if (result_field(line, "elapsed_ms", val, sizeof(val)) && val[0] >= '0' && val[0] <= '9') {
		ms = strtoull(val, &end, 10);
		if (!*end) {
			run->guest_ms = ms;
			run->has_guest_ms = true;
		}
	}
	return 0;
}

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

/* The modes the table shows: soft, and hw where the host could run it. */
static int nmodes(const struct compare_table *t)
{
	return t->hw_available ? COMPARE_NMODES : 1;
}

/* Per-mode totals over every scenario. */
struct mode_totals {
	unsigned distinct;
	uint64_t reports;
	double wall_s;
	uint64_t guest_ms;
	bool guest_complete; /* every run that ran had a guest time */
};

static void totals(const struct compare_table *t, enum compare_mode m, struct mode_totals *s)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	s->guest_complete = true;
	for (i = 0; i < t->nraces; i++)
		s->distinct += t->races[i].hit[m].count != 0;
	for (i = 0; i < t->nscenarios; i++) {
		const struct compare_run *r = &t->scenarios[i].run[m];

		if (!r->ran)
			continue;
		s->reports += r->reports;
		s->wall_s += r->wall_s;
		s->guest_ms += r->guest_ms;
		s->guest_complete &= r->has_guest_ms;
	}
}

/* Races found by both modes (@one_sided of them one-sided in one mode), soft only, hw only. */
static void overlap(const struct compare_table *t, unsigned *both, unsigned *one_sided,
		    unsigned *soft, unsigned *hw)
{
	size_t i;

	*both = *one_sided = *soft = *hw = 0;
	for (i = 0; i < t->nraces; i++) {
		const struct compare_race *r = &t->races[i];
		bool s = r->hit[COMPARE_SOFT].count, h = r->hit[COMPARE_HW].count;

		*both += s && h;
		*one_sided += s && h &&
			      (r->hit[COMPARE_SOFT].reported_as || r->hit[COMPARE_HW].reported_as);
		*soft += s && !h;
		*hw += !s && h;
	}
}

static int scenario_width(const struct compare_table *t)
{
	size_t i, w = strlen("scenario");

	for (i = 0; i < t->nscenarios; i++)
		if (strlen(t->scenarios[i].name) > w)
			w = strlen(t->scenarios[i].name);
	return (int)w;
}

static int seen_by_width(const struct compare_table *t)
{
	char buf[MECH_NAMES_MAX];
	size_t i, w = strlen("seen by");
	int m;

	for (i = 0; i < t->nraces; i++)
		for (m = 0; m < nmodes(t); m++)
			if (t->races[i].hit[m].count &&
			    strlen(seen_by(&t->races[i].hit[m], buf, sizeof(buf))) > w)
				w = strlen(seen_by(&t->races[i].hit[m], buf, sizeof(buf)));
	return (int)w;
}

static void print_races(const struct compare_table *t, FILE *f, int ws)
{
	int wm = seen_by_width(t), m;
	char buf[MECH_NAMES_MAX];
	size_t i;

	fprintf(f, "races (per mode: reports, time to the first, what saw the other side):\n");
	fprintf(f, "  %-*s", ws, "scenario");
	for (m = 0; m < nmodes(t); m++)
		fprintf(f, "  %6s  %8s  %-*s", mode_name[m], "first", wm, "seen by");
	fprintf(f, "  race\n");
	if (!t->nraces)
		fprintf(f, "  %-*s  (no races reported in any mode)\n", ws, "-");
	for (i = 0; i < t->nraces; i++) {
		const struct compare_race *r = &t->races[i];

		fprintf(f, "  %-*s", ws, t->scenarios[r->scenario].name);
		for (m = 0; m < nmodes(t); m++) {
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

static void print_runs(const struct compare_table *t, FILE *f, int ws)
{
	size_t i;
	int m;

	fprintf(f, "runs (exit status, guest result, host wall time, guest run time):\n");
	fprintf(f, "  %-*s", ws, "scenario");
	for (m = 0; m < nmodes(t); m++)
		fprintf(f, "  %4s  %-6s  %9s  %9s", mode_name[m], "result", "wall", "guest");
	fprintf(f, "%s\n", t->hw_available ? "  slowdown" : "");
	for (i = 0; i < t->nscenarios; i++) {
		const struct compare_scenario *s = &t->scenarios[i];

		fprintf(f, "  %-*s", ws, s->name);
		for (m = 0; m < nmodes(t); m++) {
			const struct compare_run *r = &s->run[m];

			if (!r->ran) {
				fprintf(f, "  %4d  %-6s  %9s  %9s", r->status, "-", "-", "-");
				continue;
			}
			fprintf(f, "  %4d  %-6s", r->status, r->result[0] ? r->result : "-");
			print_seconds(f, true, r->wall_s);
			print_seconds(f, r->has_guest_ms, (double)r->guest_ms / 1000.0);
		}
		if (t->hw_available && s->run[COMPARE_SOFT].ran && s->run[COMPARE_HW].ran &&
		    s->run[COMPARE_SOFT].wall_s > 0)
			fprintf(f, "  %7.2fx",
				s->run[COMPARE_HW].wall_s / s->run[COMPARE_SOFT].wall_s);
		fputc('\n', f);
	}
}

static void print_mode_totals(FILE *f, const char *lead, const struct mode_totals *s)
{
	fprintf(f, "%s%u distinct race%s, %" PRIu64 " report%s, wall %.2f s", lead, s->distinct,
		s->distinct == 1 ? "" : "s", s->reports, s->reports == 1 ? "" : "s", s->wall_s);
	if (s->guest_complete)
		fprintf(f, ", guest %.2f s", (double)s->guest_ms / 1000.0);
	fputc('\n', f);
}

void compare_table_print(const struct compare_table *t, FILE *f)
{
	struct mode_totals st, ht;
	unsigned both, one_sided, soft_only, hw_only;
	int ws = scenario_width(t);

	fprintf(f,
		"csan-vmm --compare: seed %" PRIu64 ", timeout %u s, %u vCPU%s, %zu scenario%s\n",
		t->seed, t->timeout_s, t->cpus, t->cpus == 1 ? "" : "s", t->nscenarios,
		t->nscenarios == 1 ? "" : "s");
	if (!t->hw_available)
		fprintf(f, "hw mode not run: %s\n", t->hw_note);
	print_races(t, f, ws);
	print_runs(t, f, ws);
	totals(t, COMPARE_SOFT, &st);
	print_mode_totals(f, "totals: soft: ", &st);
	if (!t->hw_available)
		return;
	totals(t, COMPARE_HW, &ht);
	print_mode_totals(f, "        hw:   ", &ht);
	overlap(t, &both, &one_sided, &soft_only, &hw_only);
	fprintf(f, "        found by both %u", both);
	if (one_sided)
		fprintf(f, " (%u of them one-sided in one mode)", one_sided);
	fprintf(f, ", soft only %u, hw only %u", soft_only, hw_only);
	if (st.wall_s > 0)
		fprintf(f, "; hw/soft slowdown %.2fx wall", ht.wall_s / st.wall_s);
	if (st.guest_complete && ht.guest_complete && st.guest_ms)
		fprintf(f, ", %.2fx guest", (double)ht.guest_ms / (double)st.guest_ms);
	fputc('\n', f);
}

/* A JSON number, or null when unknown. */
static void json_number(FILE *f, bool known, double v)
{
	if (known)
		fprintf(f, "%.6f", v);
	else
		fputs("null", f);
}

static void json_runs(const struct compare_table *t, FILE *f)
{
	bool first = true;
	size_t i;
	int m;

	fputs(",\n\"runs\":[", f);
	for (i = 0; i < t->nscenarios; i++)
		for (m = 0; m < nmodes(t); m++) {
			const struct compare_run *r = &t->scenarios[i].run[m];

			fputs(first ? "\n" : ",\n", f);
			first = false;
			fputs("{\"scenario\":", f);
			report_json_string(f, t->scenarios[i].name);
			fprintf(f, ",\"mode\":\"%s\",\"ran\":%s,\"exit_status\":%d,\"result\":",
				mode_name[m], r->ran ? "true" : "false", r->status);
			report_json_string(f, r->result[0] ? r->result : NULL);
			fputs(",\"wall_s\":", f);
			json_number(f, r->ran, r->wall_s);
			fputs(",\"guest_s\":", f);
			json_number(f, r->ran && r->has_guest_ms, (double)r->guest_ms / 1000.0);
			fprintf(f, ",\"reports\":%" PRIu64 "}", r->reports);
		}
	fputs("]", f);
}

static void json_hit(const struct compare_table *t, FILE *f, enum compare_mode m,
		     const struct compare_hit *h)
{
	char buf[MECH_NAMES_MAX];

	fprintf(f, ",\"%s\":", mode_name[m]);
	if (!h->count || (int)m >= nmodes(t)) {
		fputs("null", f);
		return;
	}
	fprintf(f, "{\"count\":%" PRIu64 ",\"first_seen\":%.6f,\"other_side_seen_by\":", h->count,
		h->first_seen);
	report_json_string(f, seen_by(h, buf, sizeof(buf)));
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
		for (m = 0; m < COMPARE_NMODES; m++)
			json_hit(t, f, (enum compare_mode)m, &r->hit[m]);
		fputs("}", f);
	}
	fputs("]", f);
}

static void json_mode_totals(FILE *f, const char *name, const struct mode_totals *s)
{
	fprintf(f, "\"%s\":{\"distinct\":%u,\"reports\":%" PRIu64 ",\"wall_s\":%.6f,\"guest_s\":",
		name, s->distinct, s->reports, s->wall_s);
	json_number(f, s->guest_complete, (double)s->guest_ms / 1000.0);
	fputs("}", f);
}

static void json_totals(const struct compare_table *t, FILE *f)
{
	struct mode_totals st, ht;
	unsigned both, one_sided, soft_only, hw_only;

	totals(t, COMPARE_SOFT, &st);
	totals(t, COMPARE_HW, &ht);
	fputs(",\n\"totals\":{", f);
	json_mode_totals(f, "soft", &st);
	if (!t->hw_available) {
		fputs(",\"hw\":null,\"both\":null,\"both_one_sided\":null,\"soft_only\":null,"
		      "\"hw_only\":null,\"slowdown_wall\":null,\"slowdown_guest\":null}",
		      f);
		return;
	}
	fputs(",", f);
	json_mode_totals(f, "hw", &ht);
	overlap(t, &both, &one_sided, &soft_only, &hw_only);
	fprintf(f,
		",\"both\":%u,\"both_one_sided\":%u,\"soft_only\":%u,\"hw_only\":%u,"
		"\"slowdown_wall\":",
		both, one_sided, soft_only, hw_only);
	json_number(f, st.wall_s > 0, st.wall_s > 0 ? ht.wall_s / st.wall_s : 0);
	fputs(",\"slowdown_guest\":", f);
	json_number(f, st.guest_complete && ht.guest_complete && st.guest_ms,
		    st.guest_ms ? (double)ht.guest_ms / (double)st.guest_ms : 0);
	fputs("}", f);
}

void compare_table_json(const struct compare_table *t, FILE *f)
{
	fprintf(f,
		"{\"type\":\"compare\",\"seed\":%" PRIu64 ",\"timeout_s\":%u,\"cpus\":%u,"
		"\"hw_available\":%s,\"hw_note\":",
		t->seed, t->timeout_s, t->cpus, t->hw_available ? "true" : "false");
	report_json_string(f, t->hw_available ? NULL : t->hw_note);
	json_runs(t, f);
	json_races(t, f);
	json_totals(t, f);
	fprintf(f, ",\n\"exit_status\":%d}\n", compare_exit_status(t));
}

int compare_exit_status(const struct compare_table *t)
{
	int status = EXIT_CLEAN, m;
	bool races = false;
	size_t i;

	for (i = 0; i < t->nscenarios; i++)
		for (m = 0; m < nmodes(t); m++) {
			const struct compare_run *r = &t->scenarios[i].run[m];

			status = verdict_combine(status, r->status);
			races |= r->reports != 0;
		}
	/* A run whose reports the table shows answers "races?" even if it ended 0. */
	return status == EXIT_CLEAN && races ? EXIT_RACES : status;
}
