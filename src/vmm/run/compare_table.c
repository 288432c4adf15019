/* compare_table.c: the comparison of watch modes: the rows, filled run by run, and the verdict. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "vmm/run/compare_table.h"
#include "vmm/base/exit_status.h"
#include "vmm/run/verdict.h"
#include "watch/report_log.h"

unsigned compare_table_modes(const struct compare_table *t)
{
	return t->modes ? t->modes & COMPARE_ALL_MODES : COMPARE_DEFAULT_MODES;
}

unsigned compare_table_shown(const struct compare_table *t)
{
	return compare_table_modes(t) & (t->hw_available ? COMPARE_ALL_MODES : ~COMPARE_HW_MODES);
}

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
	struct compare_race *row;
	struct compare_hit hit = {
		.count = race->count,
		.first_seen = race->first_seen,
		.other_mechanisms = race->other_mechanisms,
	};

	if (mode == COMPARE_SAMPLE) {
		/* A KCSAN kernel's own reports in a sampling run are soft mode's kind of finding.
		 */
		t->scenarios[scenario].run[mode].own_reports += race->count - race->sampled_count;
		if (!race->sampled_count)
			return 0;
		hit = (struct compare_hit){
			.count = race->sampled_count,
			.first_seen = race->sampled_first_seen,
			.other_mechanisms = race->sampled_other_mechanisms,
		};
	}
	row = find_race(t, scenario, race->signature);
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
	row->hit[mode] = hit;
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

/* The modes that reported row @r, as a COMPARE_BIT set. */
static unsigned row_modes(const struct compare_race *r)
{
	unsigned set = 0;
	int m;

	for (m = 0; m < COMPARE_NMODES; m++)
		if (r->hit[m].count)
			set |= COMPARE_BIT(m);
	return set;
}

/*
 * The only two-sided row of @one's scenario naming @fn that modes other
 * than @one's reported (none of @one's: a mode that saw both the
 * one-sided report and the two-sided one saw two things), or NULL.
 */
static struct compare_race *pair_for(struct compare_table *t, const struct compare_race *one,
				     const char *fn)
{
	const unsigned one_modes = row_modes(one);
	struct compare_race *found = NULL;
	size_t i;

	for (i = 0; i < t->nraces; i++) {
		struct compare_race *r = &t->races[i];
		const unsigned modes = row_modes(r);

		if (r == one || r->scenario != one->scenario || !modes || (modes & one_modes) ||
		    !names_side(r->signature, fn))
			continue;
		if (found)
			return NULL; /* @fn raced with more than one: which the one-sided report saw
					is unknown */
		found = r;
	}
	return found;
}

/* Move @one's hits onto @two, each saying what @one's signature was.  Returns 0 or -ENOMEM. */
static int move_hits(struct compare_race *one, struct compare_race *two)
{
	int m;

	for (m = 0; m < COMPARE_NMODES; m++) {
		char *as;

		if (!one->hit[m].count)
			continue;
		as = strdup(one->signature);
		if (!as)
			return -ENOMEM; /* the hits moved so far are each whole */
		two->hit[m] = one->hit[m];
		two->hit[m].reported_as = as;
		one->hit[m] = (struct compare_hit){ 0 };
	}
	return 0;
}

int compare_table_pair_one_sided(struct compare_table *t)
{
	size_t i, kept = 0;
	int rc = 0;

	for (i = 0; i < t->nraces && !rc; i++) {
		struct compare_race *one = &t->races[i], *two;
		const char *fn = one_sided_name(one->signature);

		if (fn && row_modes(one) && (two = pair_for(t, one, fn)))
			rc = move_hits(one, two); /* on failure the rest stay unpaired */
	}
	/* Rows left with no hit in any mode go, the order kept. */
	for (i = 0; i < t->nraces; i++) {
		struct compare_race *r = &t->races[i];

		if (!row_modes(r)) {
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

int compare_exit_status(const struct compare_table *t)
{
	const unsigned shown = compare_table_shown(t);
	int status = EXIT_CLEAN, m;
	bool races = false;
	size_t i;

	for (i = 0; i < t->nscenarios; i++)
		for (m = 0; m < COMPARE_NMODES; m++) {
			const struct compare_run *r = &t->scenarios[i].run[m];

			if (!(shown & COMPARE_BIT(m)))
				continue;
			status = verdict_combine(status, r->status);
			races |= r->reports != 0;
		}
	/* A run whose reports the table shows answers "races?" even if it ended 0. */
	return status == EXIT_CLEAN && races ? EXIT_RACES : status;
}
