/* compare_totals.c: sums over a comparison, one mode's and across modes, for the text and the JSON.
 */
#include "config.h"

#include <string.h>

#include "vmm/run/compare_totals.h"

void compare_totals(const struct compare_table *t, enum compare_mode m,
		    struct compare_mode_totals *s)
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
		s->reports += r->reports - r->own_reports;
		s->own_reports += r->own_reports;
		s->wall_s += r->wall_s;
		s->guest_ms += r->guest_ms;
		s->guest_complete &= r->has_guest_ms;
	}
}

/* The modes shown in @t that reported row @r, as COMPARE_BIT set. */
static unsigned row_modes(const struct compare_table *t, const struct compare_race *r)
{
	unsigned set = 0;
	int m;

	for_each_mode (m, compare_table_shown(t)) {
		if (r->hit[m].count)
			set |= COMPARE_BIT(m);
	}
	return set;
}

unsigned compare_found_by(const struct compare_table *t, unsigned set)
{
	unsigned n = 0;
	size_t i;

	for (i = 0; i < t->nraces; i++)
		n += row_modes(t, &t->races[i]) == set;
	return n;
}

unsigned compare_found_one_sided(const struct compare_table *t)
{
	unsigned n = 0;
	size_t i;
	int m;

	for (i = 0; i < t->nraces; i++) {
		const struct compare_race *r = &t->races[i];
		bool paired = false;

		for (m = 0; m < COMPARE_NMODES; m++)
			paired |= r->hit[m].count && r->hit[m].reported_as;
		n += paired && compare_modes_count(row_modes(t, r)) >= 2;
	}
	return n;
}

struct compare_slowdown compare_slowdown(const struct compare_table *t, enum compare_mode m,
					 enum compare_mode base)
{
	struct compare_mode_totals b, x;
	struct compare_slowdown s = { 0 };

	compare_totals(t, base, &b);
	compare_totals(t, m, &x);
	if (b.wall_s > 0) {
		s.wall_known = true;
		s.wall = x.wall_s / b.wall_s;
	}
	if (b.guest_complete && x.guest_complete && b.guest_ms) {
		s.guest_known = true;
		s.guest = (double)x.guest_ms / (double)b.guest_ms;
	}
	return s;
}

bool compare_subsets_next(unsigned shown, unsigned *set)
{
	int size = *set ? compare_modes_count(*set) : compare_modes_count(shown);
	unsigned next = *set ? *set + 1 : 1;

	for (; size > 0; size--, next = 1)
		for (; next <= COMPARE_ALL_MODES; next++)
			if (!(next & ~shown) && compare_modes_count(next) == size) {
				*set = next;
				return true;
			}
	return false;
}
