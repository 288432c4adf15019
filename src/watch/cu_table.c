/* cu_table.c: each DWARF CU's functions by address. */
#include <dwarf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "watch/cu_table.h"

/* One code range of a function, [lo, hi). */
struct fn_range {
	uint64_t lo, hi;
	Dwarf_Die die;
};

struct cu_index {
	Dwarf_Off cu_off; /* the CU DIE's offset: the key */
	bool used;	  /* false: a free slot of the table */
	struct fn_range *r;
	size_t n;
};

struct cu_table {
	struct cu_index *slots; /* open addressing on cu_off, at most half full */
	size_t used, mask;
};

int cu_table_new(struct cu_table **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void cu_table_free(struct cu_table *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; t->slots && i <= t->mask; i++)
		free(t->slots[i].r);
	free(t->slots);
	free(t);
}

static int range_cmp(const void *a, const void *b)
{
	const struct fn_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Every code range of every top-level function of @cudie, sorted. */
static int index_cu(Dwarf_Die *cudie, struct cu_index *ci)
{
	size_t cap = 0;
	Dwarf_Die c;

	if (dwarf_child(cudie, &c) != 0)
		return 0;
	do {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;

		if (dwarf_tag(&c) != DW_TAG_subprogram)
			continue;
		while ((off = dwarf_ranges(&c, off, &base, &lo, &hi)) > 0) {
			if (lo >= hi)
				continue;
			if (ci->n == cap) {
				struct fn_range *p;

				cap = cap ? cap * 2 : 64;
				p = realloc(ci->r, cap * sizeof(*p));
				if (!p)
					return -ENOMEM;
				ci->r = p;
			}
			ci->r[ci->n++] = (struct fn_range){ .lo = lo, .hi = hi, .die = c };
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	if (ci->n)
		qsort(ci->r, ci->n, sizeof(*ci->r), range_cmp);
	return 0;
}

static size_t slot_of(Dwarf_Off off, size_t mask)
{
	return (size_t)(((uint64_t)off * 0x9e3779b97f4a7c15ull) >> 40) & mask;
}

/* Double the table (a power of two, at most half full). */
static int grow(struct cu_table *t)
{
	size_t nslots = t->slots ? (t->mask + 1) * 2 : 256, i, j;
	struct cu_index *v = calloc(nslots, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (i = 0; t->slots && i <= t->mask; i++) {
		if (!t->slots[i].used)
			continue;
		for (j = slot_of(t->slots[i].cu_off, nslots - 1); v[j].used;
		     j = (j + 1) & (nslots - 1))
			;
		v[j] = t->slots[i];
	}
	free(t->slots);
	t->slots = v;
	t->mask = nslots - 1;
	return 0;
}

/* The index of @cudie, built on first use; NULL without memory. */
static const struct cu_index *index_of(struct cu_table *t, Dwarf_Die *cudie)
{
	Dwarf_Off off = dwarf_dieoffset(cudie);
	struct cu_index *ci;
	size_t i;

	if ((t->used + 1) * 2 > (t->slots ? t->mask + 1 : 0) && grow(t) != 0)
		return NULL;
	for (i = slot_of(off, t->mask);; i = (i + 1) & t->mask) {
		ci = &t->slots[i];
		if (!ci->used)
			break;
		if (ci->cu_off == off)
			return ci;
	}
	if (index_cu(cudie, ci) != 0) {
		free(ci->r);
		*ci = (struct cu_index){ 0 };
		return NULL;
	}
	ci->cu_off = off;
	ci->used = true;
	t->used++;
	return ci;
}

int cu_table_fn_at(struct cu_table *t, Dwarf_Die *cudie, Dwarf_Addr pc, Dwarf_Die *out)
{
	const struct cu_index *ci = index_of(t, cudie);
	size_t lo = 0, hi;

	if (!ci)
		return -ENOMEM;
	/* The last range starting at or below @pc: functions' ranges do not overlap. */
	for (hi = ci->n; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		if (ci->r[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || pc >= ci->r[lo - 1].hi)
		return 0;
	*out = ci->r[lo - 1].die;
	return 1;
}
