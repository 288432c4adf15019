/* sample_sites_priv.h: the table behind sample_sites.h, shared by its files. */
#ifndef CSAN_WATCH_SAMPLE_SITES_PRIV_H
#define CSAN_WATCH_SAMPLE_SITES_PRIV_H

#include "watch/sample_sites.h"

/* An excluded range, and (once flattened) a piece of the disjoint cover. */
struct sample_range {
	uint64_t lo, hi;
	enum sample_skip why;
};

struct sample_table {
	struct sample_site *site;
	size_t nsites, cap;
	bool sorted; /* site[] by address */
	bool sealed; /* seeded: no more code */
	size_t nretired;

	/* Exclusions as given, and their disjoint cover (lowest reason wins). */
	struct sample_range *excl;
	size_t nexcl, excl_cap;
	struct sample_range *cover;
	size_t ncover;
	bool cover_stale;

	uint64_t *func; /* function starts, sorted when !func_stale */
	size_t nfunc, func_cap;
	bool func_stale;

	/* The draw: order[0..olen) holds the indices of sites not yet
	 * dropped as retired; [0, pos) are drawn this round. */
	uint32_t *order;
	size_t olen, pos;
	uint64_t round;
	uint64_t rng;

	struct sample_stats stats;
};

/* sample_table_seal - end building: sort, and free what only building needed. */
void sample_table_seal(struct sample_table *t);

/* Uniform in [0, @n), @n > 0, from the splitmix64 state *@state (sample_draw.c). */
uint64_t sample_uniform_below(uint64_t *state, uint64_t n);

/* Grow *@p (of *@cap elements of @size bytes) to hold @need; 0 or -ENOMEM. */
int sample_grow(void **p, size_t *cap, size_t need, size_t size);

#endif /* CSAN_WATCH_SAMPLE_SITES_PRIV_H */
