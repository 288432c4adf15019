/* sample_draw.c: drawing sampling sites uniformly, each once per round, from a seed. */
#include <errno.h>
#include <stdlib.h>

#include "watch/sample_sites_priv.h"

/*
 * splitmix64 (Steele, Lea and Flood, OOPSLA 2014): one 64-bit state, a
 * full period, and good enough statistics for picking sites; its whole
 * state is the seed, so a run is repeated by its seed alone.
 */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, @n), @n > 0: values in the short last bucket are drawn again. */
uint64_t sample_uniform_below(uint64_t *state, uint64_t n)
{
	uint64_t floor = -n % n, r; /* 2^64 mod n: the biased values lie below it */

	do
		r = next_random(state);
	while (r < floor);
	return r % n;
}

int sample_table_seed(struct sample_table *t, uint64_t seed)
{
	size_t i, n = 0;
	uint32_t *order;

	if (t->nsites > UINT32_MAX)
		return -ENOMEM;
	sample_table_seal(t);
	order = realloc(t->order, (t->nsites ? t->nsites : 1) * sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (i = 0; i < t->nsites; i++)
		if (!t->site[i].retired)
			order[n++] = (uint32_t)i;
	t->order = order;
	t->olen = n;
	t->pos = n; /* the first draw begins round 1 */
	t->round = 0;
	t->rng = seed;
	return 0;
}

/*
 * One step of Fisher-Yates per draw: the site at pos is chosen uniformly
 * among those not yet drawn this round.  A retired site is dropped from
 * the order when it comes up, so retiring costs nothing at the time.
 */
const struct sample_site *sample_table_draw(struct sample_table *t)
{
	while (t->olen) {
		size_t j;
		uint32_t k;

		if (t->pos == t->olen) {
			t->pos = 0;
			t->round++;
		}
		j = t->pos + (size_t)sample_uniform_below(&t->rng, t->olen - t->pos);
		k = t->order[j];
		t->order[j] = t->order[t->pos];
		t->order[t->pos] = k;
		if (t->site[k].retired) {
			t->order[t->pos] = t->order[--t->olen];
			continue;
		}
		t->pos++;
		return &t->site[k];
	}
	return NULL;
}

uint64_t sample_table_round(const struct sample_table *t)
{
	return t->round;
}

size_t sample_table_live(const struct sample_table *t)
{
	return t->nsites - t->nretired;
}

int sample_table_retire(struct sample_table *t, uint64_t addr)
{
	struct sample_site *s = (struct sample_site *)sample_table_find(t, addr);

	if (!s)
		return -ENOENT;
	if (s->retired)
		return -EALREADY;
	s->retired = 1;
	t->nretired++;
	return 0;
}
