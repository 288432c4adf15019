/* compare_totals.h: sums over a comparison, one mode's and across modes, for the text and the JSON.
 */
#ifndef CSAN_VMM_COMPARE_TOTALS_H
#define CSAN_VMM_COMPARE_TOTALS_H

#include <stdbool.h>
#include <stdint.h>

#include "vmm/run/compare_table.h"

/* One mode over every scenario. */
struct compare_mode_totals {
	unsigned distinct;    /* rows this mode reported */
	uint64_t reports;     /* its reports (sample: sampling's only) */
	uint64_t own_reports; /* sample: the kernel's own detector's, not counted above */
	double wall_s;
	uint64_t guest_ms;
	bool guest_complete; /* every run that ran had a guest time */
};

/* compare_totals - mode @m's totals in @t into @s. */
void compare_totals(const struct compare_table *t, enum compare_mode m,
		    struct compare_mode_totals *s);

/* compare_found_by - how many rows exactly the modes of @set (COMPARE_BIT) reported. */
unsigned compare_found_by(const struct compare_table *t, unsigned set);

/*
 * compare_found_one_sided - how many rows two or more modes reported,
 * one of them only one-sided (a hit paired onto the row, reported_as).
 */
unsigned compare_found_one_sided(const struct compare_table *t);

/* The ratio of @m's time to @base's, wall and guest; false where unknown. */
struct compare_slowdown {
	bool wall_known, guest_known;
	double wall, guest;
};

/* compare_slowdown - @m against @base over every scenario. */
struct compare_slowdown compare_slowdown(const struct compare_table *t, enum compare_mode m,
					 enum compare_mode base);

/*
 * compare_subsets_next - walk the non-empty subsets of @shown, larger
 * first, then in run order (soft+hw before soft+sample before hw+sample):
 * start with *@set = 0; returns false after the last.
 */
bool compare_subsets_next(unsigned shown, unsigned *set);

#endif /* CSAN_VMM_COMPARE_TOTALS_H */
