/* sample_pool.c: the vmlinux's sites and loaded modules' drawn as one, uniformly. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "watch/sample_sites_priv.h"

/*
 * One loaded module: its table, and the bytes its sites were decoded
 * from, which the VMM compares with guest memory at a hit (a module's
 * text is not in any file the host holds as it runs).
 */
struct pool_module {
	char name[64];
	uint64_t base;
	uint64_t lo, hi; /* the copy's span: every site lies inside */
	uint8_t *copy;
	struct sample_table *t;
};

struct sample_pool {
	struct sample_table *kernel;
	int64_t off;
	struct pool_module *mod;
	size_t nmod, cap;
	uint64_t seed; /* each module's draw is seeded from it and its base */
	uint64_t rng;  /* which table the next draw takes from */
};

struct sample_pool *sample_pool_new(struct sample_table *kernel, uint64_t seed)
{
	struct sample_pool *p = calloc(1, sizeof(*p));

	if (!p) {
		sample_table_free(kernel);
		return NULL;
	}
	p->kernel = kernel;
	p->seed = seed;
	p->rng = seed ^ 0x6d6f64756c65ull; /* not the kernel table's own sequence */
	return p;
}

static void module_free(struct pool_module *m)
{
	sample_table_free(m->t);
	free(m->copy);
}

void sample_pool_free(struct sample_pool *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nmod; i++)
		module_free(&p->mod[i]);
	free(p->mod);
	sample_table_free(p->kernel);
	free(p);
}

void sample_pool_set_offset(struct sample_pool *p, int64_t off)
{
	p->off = off;
}

struct sample_table *sample_pool_kernel(struct sample_pool *p)
{
	return p->kernel;
}

static struct pool_module *module_named(struct sample_pool *p, const char *name, uint64_t base)
{
	size_t i;

	for (i = 0; i < p->nmod; i++)
		if (p->mod[i].base == base && strcmp(p->mod[i].name, name) == 0)
			return &p->mod[i];
	return NULL;
}

int sample_pool_add_module(struct sample_pool *p, const char *name, uint64_t base,
			   struct sample_table *t, uint64_t lo, uint8_t *copy, size_t len)
{
	struct pool_module m = { .base = base, .lo = lo, .hi = lo + len, .copy = copy, .t = t };
	int rc;

	if (module_named(p, name, base)) {
		rc = -EEXIST;
		goto fail;
	}
	rc = sample_table_seed(t, p->seed ^ (base * 0x9e3779b97f4a7c15ull));
	if (rc)
		goto fail;
	if (p->nmod == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 8;
		struct pool_module *a = realloc(p->mod, cap * sizeof(*a));

		if (!a) {
			rc = -ENOMEM;
			goto fail;
		}
		p->mod = a;
		p->cap = cap;
	}
	snprintf(m.name, sizeof(m.name), "%s", name);
	p->mod[p->nmod++] = m;
	return 0;
fail:
	sample_table_free(t);
	free(copy);
	return rc;
}

long sample_pool_remove_module(struct sample_pool *p, const char *name, uint64_t base)
{
	struct pool_module *m = module_named(p, name, base);
	long live;

	if (!m)
		return -ENOENT;
	live = (long)sample_table_live(m->t);
	module_free(m);
	*m = p->mod[--p->nmod];
	return live;
}

size_t sample_pool_modules(const struct sample_pool *p)
{
	return p->nmod;
}

const char *sample_pool_module(const struct sample_pool *p, size_t i, uint64_t *base, size_t *live)
{
	if (i >= p->nmod)
		return NULL;
	if (base)
		*base = p->mod[i].base;
	if (live)
		*live = sample_table_live(p->mod[i].t);
	return p->mod[i].name;
}

size_t sample_pool_live(const struct sample_pool *p)
{
	size_t i, n = p->kernel ? sample_table_live(p->kernel) : 0;

	for (i = 0; i < p->nmod; i++)
		n += sample_table_live(p->mod[i].t);
	return n;
}

/*
 * First a table, with the chance of its live sites among all, then a
 * site of it (its own round without replacement): every live site of the
 * pool is as likely as any other, so loading a module does not crowd out
 * the kernel, nor the kernel a module.
 */
const struct sample_site *sample_pool_draw(struct sample_pool *p, uint64_t *at)
{
	size_t total = sample_pool_live(p), i;
	uint64_t r;
	const struct sample_site *s;

	if (!total)
		return NULL;
	r = sample_uniform_below(&p->rng, total);
	for (i = 0; i < p->nmod; i++) {
		size_t live = sample_table_live(p->mod[i].t);

		if (r < live) {
			s = sample_table_draw(p->mod[i].t);
			if (s)
				*at = s->addr;
			return s;
		}
		r -= live;
	}
	s = sample_table_draw(p->kernel);
	if (s)
		*at = s->addr + (uint64_t)p->off;
	return s;
}

static struct pool_module *module_at(struct sample_pool *p, uint64_t at)
{
	size_t i;

	for (i = 0; i < p->nmod; i++)
		if (at >= p->mod[i].lo && at < p->mod[i].hi)
			return &p->mod[i];
	return NULL;
}

const struct sample_site *sample_pool_find(struct sample_pool *p, uint64_t at,
					   const uint8_t **expect)
{
	struct pool_module *m = module_at(p, at);
	const struct sample_site *s;

	if (expect)
		*expect = NULL;
	if (!m)
		return p->kernel ? sample_table_find(p->kernel, at - (uint64_t)p->off) : NULL;
	s = sample_table_find(m->t, at);
	if (s && expect && s->addr + s->len <= m->hi)
		*expect = m->copy + (s->addr - m->lo);
	return s;
}

int sample_pool_retire(struct sample_pool *p, uint64_t at)
{
	struct pool_module *m = module_at(p, at);

	if (m)
		return sample_table_retire(m->t, at);
	return p->kernel ? sample_table_retire(p->kernel, at - (uint64_t)p->off) : -ENOENT;
}
