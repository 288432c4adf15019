/* symtab.c: the ELF symbol table indexed by address and by name. */
#include <errno.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "watch/symtab.h"

struct symtab_entry {
	uint64_t addr, size;
	uint64_t max_end; /* the highest addr + size of this and every entry before it */
	const char *name;
	unsigned order; /* index in the ELF's table: ties go to the first, as libdwfl's */
	int bind_rank;	/* global 3, weak 2, local 1 */
};

/*
 * The name index is a hash table with linear probing, not a sorted array:
 * sorting a vmlinux's names took two thirds of opening its symbols
 * (callgrind: 39 of 47 million instructions in qsort_r and strcmp), and
 * the start-up of a Linux run waits for it.  Slots hold by_addr index + 1
 * (0 is empty).  Entries are inserted in address order, so the entries of
 * one name, which share a home slot, are met in address order when
 * probing from it.
 */
struct symtab {
	struct symtab_entry *by_addr; /* sorted by address */
	uint32_t *by_name;	      /* hash slots: by_addr index + 1, or 0 */
	size_t n;
	size_t mask; /* slots - 1; slots a power of two, at least twice n */
};

/* FNV-1a: short, and spreads the kernel's many shared name prefixes well. */
static size_t name_hash(const char *name)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*name) {
		h ^= (unsigned char)*name++;
		h *= 0x100000001b3ull;
	}
	return (size_t)(h ^ (h >> 32));
}

static int bind_rank(unsigned char info)
{
	switch (GELF_ST_BIND(info)) {
	case STB_GLOBAL: return 3;
	case STB_WEAK: return 2;
	case STB_LOCAL: return 1;
	default: return 0;
	}
}

/* Symbols that name code or data: not sections, files or undefined ones. */
static bool wanted(const char *name, const GElf_Sym *es)
{
	int type = GELF_ST_TYPE(es->st_info);

	return name && *name && es->st_shndx != SHN_UNDEF &&
	       (type == STT_FUNC || type == STT_OBJECT || type == STT_NOTYPE ||
		type == STT_GNU_IFUNC);
}

static int addr_cmp(const void *a, const void *b)
{
	const struct symtab_entry *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

int symtab_build(Dwfl_Module *mod, struct symtab **out)
{
	struct symtab *t = calloc(1, sizeof(*t));
	int i, n = dwfl_module_getsymtab(mod);
	uint64_t max_end = 0;
	size_t k, slot;

	*out = NULL;
	if (!t)
		return -ENOMEM;
	if (n > 1) {
		size_t slots = 16;

		while (slots < 2 * (size_t)n)
			slots *= 2;
		t->mask = slots - 1;
		t->by_addr = calloc((size_t)n, sizeof(*t->by_addr));
		t->by_name = calloc(slots, sizeof(*t->by_name));
		if (!t->by_addr || !t->by_name) {
			symtab_free(t);
			return -ENOMEM;
		}
	}
	for (i = 1; i < n; i++) {
		GElf_Addr addr;
		GElf_Sym es;
		const char *name = dwfl_module_getsym_info(mod, i, &es, &addr, NULL, NULL, NULL);

		if (!wanted(name, &es))
			continue;
		t->by_addr[t->n++] = (struct symtab_entry){ .addr = addr,
							    .size = es.st_size,
							    .name = name,
							    .order = (unsigned)i,
							    .bind_rank = bind_rank(es.st_info) };
	}
	qsort(t->by_addr, t->n, sizeof(*t->by_addr), addr_cmp);
	for (k = 0; k < t->n; k++) {
		struct symtab_entry *e = &t->by_addr[k];

		if (e->addr + e->size > max_end)
			max_end = e->addr + e->size;
		e->max_end = max_end;
		for (slot = name_hash(e->name) & t->mask; t->by_name[slot];
		     slot = (slot + 1) & t->mask)
			;
		t->by_name[slot] = (uint32_t)k + 1;
	}
	*out = t;
	return 0;
}

void symtab_free(struct symtab *t)
{
	if (!t)
		return;
	free(t->by_addr);
	free(t->by_name);
	free(t);
}

/*
 * Whether @e names an address better than @best, as libdwfl chooses: the
 * innermost symbol, then the stronger binding, then the smaller size,
 * then the first in the ELF's table (aliases: memcpy and __memcpy).
 */
static bool better(const struct symtab_entry *e, const struct symtab_entry *best)
{
	if (!best || e->addr != best->addr)
		return !best || e->addr > best->addr;
	if (e->bind_rank != best->bind_rank)
		return e->bind_rank > best->bind_rank;
	if (e->size != best->size)
		return e->size < best->size;
	return e->order < best->order;
}

const char *symtab_at(const struct symtab *t, uint64_t addr, uint64_t *start, uint64_t *size)
{
	const struct symtab_entry *best = NULL;
	size_t lo = 0, hi = t->n;

	/* Past the last entry starting at or below @addr ... */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->by_addr[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* ... back while an entry so far may still reach over @addr. */
	while (lo > 0 && t->by_addr[lo - 1].max_end > addr) {
		const struct symtab_entry *e = &t->by_addr[--lo];

		if (!e->size || addr - e->addr >= e->size)
			continue;
		if (better(e, best))
			best = e;
	}
	if (!best)
		return NULL;
	*start = best->addr;
	*size = best->size;
	return best->name;
}

/*
 * Of the symbols named alike, the one the kernel meant: kallsyms gives as
 * size the distance to the next symbol, which is the ELF size plus
 * alignment padding, so the best match is an exact size, else the largest
 * ELF size not above @size_hint; without a hint, the lowest address.
 * Ties go to the lower address: the probe meets a name's entries in
 * address order.
 */
int symtab_by_name(const struct symtab *t, const char *name, uint64_t size_hint, uint64_t *addr,
		   uint64_t *size)
{
	const struct symtab_entry *best = NULL;
	size_t slot;

	if (!t->n)
		return -ENOENT;
	for (slot = name_hash(name) & t->mask; t->by_name[slot]; slot = (slot + 1) & t->mask) {
		const struct symtab_entry *e = &t->by_addr[t->by_name[slot] - 1];

		if (strcmp(e->name, name) != 0)
			continue;
		if (!best) {
			best = e;
			if (!size_hint)
				break;
		} else if (best->size != size_hint && e->size <= size_hint &&
			   (best->size > size_hint || e->size > best->size)) {
			best = e;
		}
		if (best->size == size_hint)
			break;
	}
	if (!best)
		return -ENOENT;
	*addr = best->addr;
	if (size)
		*size = best->size;
	return 0;
}
