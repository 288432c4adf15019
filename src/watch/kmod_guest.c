/* kmod_guest.c: hw mode: the modules a Linux guest has loaded, read from its memory. */
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "watch/kmod.h"
#include "watch/kmod_priv.h"

#define MODULE_STATE_UNFORMED 3	  /* enum module_state: not yet in use */
#define KMOD_GUEST_MAX	      512 /* modules read from one list: a loop ends there */
#define GUEST_PAGE	      4096ull
#define MODULE_NAME_LEN	      56 /* struct module's name[]: 64 - sizeof(long) */

/* What one walk of the guest's list found of a module. */
struct seen {
	char name[KMOD_NAME_MAX];
	uint64_t base, text_size;
	unsigned state;
	uint64_t extable, num_exentries;
};

/*
 * Where a module's core text is in its struct module, at offset @l's
 * off_base and off_text_size.  Up to Linux 6.3: core_layout's base and
 * text_size (the text comes first in the core allocation).  From 6.4 on
 * (commit "module: replace module_layout with module_memory"): mem[],
 * one allocation per kind, whose first, MOD_TEXT = 0, holds the text
 * alone, its base and size.
 */
static int text_from_dwarf(struct sym *sym, uint64_t near, struct kmod_guest_layout *l)
{
	uint64_t at, base, size;

	if (sym_member_offset(sym, near, "module", "core_layout", &at) == 0) {
		if (sym_member_offset(sym, near, "module_layout", "base", &base) ||
		    sym_member_offset(sym, near, "module_layout", "text_size", &size))
			return -ENOENT;
	} else if (sym_member_offset(sym, near, "module", "mem", &at) == 0) {
		/* mem[MOD_TEXT], MOD_TEXT being 0: the array's first element. */
		if (sym_member_offset(sym, near, "module_memory", "base", &base) ||
		    sym_member_offset(sym, near, "module_memory", "size", &size))
			return -ENOENT;
	} else {
		return -ENOENT;
	}
	l->off_base = at + base;
	l->off_text_size = at + size;
	return 0;
}

int kmod_guest_layout_of(struct sym *sym, struct kmod_guest_layout *l)
{
	uint64_t near;

	memset(l, 0, sizeof(*l));
	/* struct module's layout from the DWARF of a CU that uses it beside the list. */
	if (sym_addr_of(sym, "modules", 16, &l->modules, NULL) ||
	    (sym_addr_of(sym, "__module_address", 0, &near, NULL) &&
	     sym_addr_of(sym, "load_module", 0, &near, NULL)))
		return -ENOENT;
	if (sym_member_offset(sym, near, "module", "list", &l->off_list) ||
	    sym_member_offset(sym, near, "module", "state", &l->off_state) ||
	    sym_member_offset(sym, near, "module", "name", &l->off_name) ||
	    text_from_dwarf(sym, near, l))
		return -ENOENT;
	/* Only sampling needs the exception table: a kernel without it still places modules. */
	if (sym_member_offset(sym, near, "module", "extable", &l->off_extable) ||
	    sym_member_offset(sym, near, "module", "num_exentries", &l->off_num_exentries))
		l->off_extable = l->off_num_exentries = 0;
	return 0;
}

int kmod_set_guest_layout(struct sym *sym, const struct kmod_guest_layout *l)
{
	struct kmod *k = sym_modules(sym);

	if (!k)
		return -ENOENT;
	pthread_mutex_lock(&k->lock);
	k->layout = *l;
	k->layout_state = 1;
	pthread_mutex_unlock(&k->lock);
	return 0;
}

static bool rd32(unwind_read_fn read, void *ctx, uint64_t a, uint64_t *v)
{
	if (!read(ctx, a, v))
		return false;
	*v &= 0xffffffffu;
	return true;
}

/* One module's entry at @m: false if unreadable. */
static bool read_module(const struct kmod_guest_layout *l, unwind_read_fn read, void *ctx,
			uint64_t m, struct seen *out, bool *unformed)
{
	char raw[MODULE_NAME_LEN];
	uint64_t state, w;
	unsigned i;

	if (!rd32(read, ctx, m + l->off_state, &state) || !read(ctx, m + l->off_base, &out->base) ||
	    !rd32(read, ctx, m + l->off_text_size, &out->text_size))
		return false;
	*unformed = state == MODULE_STATE_UNFORMED;
	out->state = (unsigned)state;
	out->extable = out->num_exentries = 0;
	if (l->off_extable && l->off_num_exentries &&
	    (!read(ctx, m + l->off_extable, &out->extable) ||
	     !rd32(read, ctx, m + l->off_num_exentries, &out->num_exentries)))
		out->extable = out->num_exentries = 0;
	for (i = 0; i < MODULE_NAME_LEN / 8; i++) {
		if (!read(ctx, m + l->off_name + 8 * i, &w))
			return false;
		memcpy(raw + 8 * i, &w, 8);
	}
	raw[MODULE_NAME_LEN - 1] = '\0';
	kmod_norm_name(raw, strlen(raw), out->name);
	return true;
}

/*
 * The guest's modules list into @out (at most KMOD_GUEST_MAX); the count.
 * The list head is the vmlinux's, where the guest runs it (@offset: KASLR).
 */
static size_t walk_list(const struct kmod_guest_layout *l, int64_t offset, unwind_read_fn read,
			void *ctx, struct seen *out)
{
	const uint64_t head = l->modules + (uint64_t)offset;
	uint64_t p;
	size_t n = 0, steps;
	bool unformed;

	if (!read(ctx, head, &p))
		return 0;
	for (steps = 0; p != head && steps < KMOD_GUEST_MAX; steps++) {
		if (!read_module(l, read, ctx, p - l->off_list, &out[n], &unformed))
			break;
		if (!unformed && out[n].base && out[n].name[0])
			n++;
		if (!read(ctx, p, &p)) /* list_head.next is its first word */
			break;
	}
	return n;
}

static bool starts(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

/*
 * The module's core text sections as layout_sections placed them: every
 * SHF_ALLOC|SHF_EXECINSTR section in index order, aligned, .init ones
 * elsewhere, and .exit ones too on a kernel without MODULE_UNLOAD, which
 * the text size tells apart.  Host places from libdwfl's own layout.
 */
static unsigned lay_out_text(Elf *elf, Dwarf_Addr bias, const struct seen *g, bool skip_exit,
			     struct kmod_text *t, uint64_t *size)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	unsigned n = 0;
	uint64_t at = 0;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	while ((scn = elf_nextscn(elf, scn)) != NULL && n < KMOD_TEXT_MAX) {
		const char *name;
		uint64_t align;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) != (SHF_ALLOC | SHF_EXECINSTR))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || starts(name, ".init") || (skip_exit && starts(name, ".exit")))
			continue;
		align = sh.sh_addralign ? sh.sh_addralign : 1;
		at = (at + align - 1) & ~(align - 1);
		t[n] = (struct kmod_text){ .guest = g->base + at,
					   .host = sh.sh_addr + bias,
					   .size = sh.sh_size };
		snprintf(t[n].name, sizeof(t[n].name), "%s", name);
		n++;
		at += sh.sh_size;
	}
	*size = at;
	return n;
}

/* The guest address of section @shndx, if it is one of the module's text sections. */
static bool section_guest(Elf *elf, Dwarf_Addr bias, const struct kmod_text *t, unsigned n,
			  size_t shndx, uint64_t *guest)
{
	Elf_Scn *scn = elf_getscn(elf, shndx);
	GElf_Shdr sh;
	unsigned i;

	if (!scn || !gelf_getshdr(scn, &sh))
		return false;
	for (i = 0; i < n; i++)
		if (t[i].host == sh.sh_addr + bias && t[i].size == sh.sh_size) {
			*guest = t[i].guest;
			return true;
		}
	return false;
}

static int first_module(Dwfl_Module *m, void **user, const char *name, Dwarf_Addr start, void *arg)
{
	*(Dwfl_Module **)arg = m;
	return DWARF_CB_ABORT;
}

/* The named section's index, or 0. */
static size_t section_index(Elf *elf, const char *want)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *name =
			gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;

		if (name && strcmp(name, want) == 0)
			return elf_ndxscn(scn);
	}
	return 0;
}

/*
 * The module's ORC table at guest addresses: .orc_unwind_ip holds zeros
 * in a .ko, each entry's IP being a PC32 relocation against a text
 * section (S + A - P, so the IP is S + A), applied here by hand.
 */
static struct orc_table *module_orc(Elf *elf, Dwarf_Addr bias, const struct kmod_text *t,
				    unsigned nt, enum orc_format fmt)
{
	size_t ip_idx = section_index(elf, ".orc_unwind_ip"),
	       orc_idx = section_index(elf, ".orc_unwind");
	Elf_Data *orcd = orc_idx ? elf_getdata(elf_getscn(elf, orc_idx), NULL) : NULL;
	Elf_Scn *scn = NULL, *symscn;
	struct orc_table *table = NULL;
	unsigned char *ents = NULL;
	uint64_t *ips = NULL, end = 0;
	size_t n = 0, cap, i;
	GElf_Shdr sh, symsh;

	if (!ip_idx || !orcd || !orcd->d_buf || !(cap = orcd->d_size / 6))
		return NULL;
	ips = calloc(cap, sizeof(*ips));
	ents = calloc(cap, 6);
	while (ips && ents && (scn = elf_nextscn(elf, scn)) != NULL) {
		Elf_Data *rel, *syms;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || sh.sh_info != ip_idx)
			continue;
		rel = elf_getdata(scn, NULL);
		symscn = elf_getscn(elf, sh.sh_link);
		syms = symscn && gelf_getshdr(symscn, &symsh) ? elf_getdata(symscn, NULL) : NULL;
		for (i = 0; rel && syms && i < sh.sh_size / sizeof(GElf_Rela); i++) {
			GElf_Rela r;
			GElf_Sym s;
			uint64_t at, k;

			if (!gelf_getrela(rel, (int)i, &r) ||
			    !gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &s) ||
			    (k = r.r_offset / 4) >= cap ||
			    !section_guest(elf, bias, t, nt, s.st_shndx, &at))
				continue; /* .init code, or not an IP */
			ips[n] = at + s.st_value + (uint64_t)r.r_addend;
			memcpy(ents + 6 * n, (const unsigned char *)orcd->d_buf + 6 * k, 6);
			n++;
		}
		break;
	}
	for (i = 0; i < nt; i++)
		if (t[i].guest + t[i].size > end)
			end = t[i].guest + t[i].size;
	if (n)
		orc_table_from_ips(ips, ents, n, fmt, end, &table);
	free(ips);
	free(ents);
	return table;
}

enum orc_format kmod_vmlinux_orc_format(struct sym *sym)
{
	Dwfl *dwfl = sym_dwfl_lock(sym);
	Dwfl_Module *m = NULL;
	enum orc_format fmt = ORC_FORMAT_V1;
	Dwarf_Addr bias;
	Elf *elf;

	/* The ELF itself is the first module reported; modules come after it. */
	if (dwfl_getmodules(dwfl, first_module, &m, 0) >= 0 && m &&
	    (elf = dwfl_module_getelf(m, &bias)) && section_index(elf, ".orc_header"))
		fmt = ORC_FORMAT_V2;
	sym_dwfl_unlock(sym);
	return fmt;
}

/* Lay out module @g's text and ORC from its .ko, into @p (not yet published). */
static bool place(struct kmod *k, const struct seen *g, Dwfl_Module *m, struct kmod_placed *p)
{
	struct kmod_text t[KMOD_TEXT_MAX];
	Dwarf_Addr bias;
	uint64_t size;
	unsigned n;
	Elf *elf;

	memset(p, 0, sizeof(*p));
	sym_dwfl_lock(k->sym);
	elf = dwfl_module_getelf(m, &bias);
	n = elf ? lay_out_text(elf, bias, g, false, t, &size) : 0;
	/* A text size that only fits without .exit: a kernel without MODULE_UNLOAD. */
	if (n && ((size + GUEST_PAGE - 1) & ~(GUEST_PAGE - 1)) != g->text_size &&
	    size != g->text_size)
		n = lay_out_text(elf, bias, g, true, t, &size);
	if (n) {
		p->orc = module_orc(elf, bias, t, n, k->orc_fmt);
		p->text = malloc(n * sizeof(*t));
	}
	sym_dwfl_unlock(k->sym);
	if (!n || !p->text) {
		orc_free(p->orc);
		return false;
	}
	memcpy(p->text, t, n * sizeof(*t));
	p->ntext = n;
	snprintf(p->name, sizeof(p->name), "%s", g->name);
	p->base = g->base;
	p->text_size = g->text_size;
	p->mod = m;
	p->live = true;
	p->state = g->state;
	p->extable = g->extable;
	p->num_exentries = (uint32_t)g->num_exentries;
	return true;
}

/* Publish @p, replacing a placement of the same module; under map_lock. */
static void publish(struct kmod *k, struct kmod_placed *p)
{
	struct kmod_placed *arr;
	struct orc_table **old;
	size_t i;

	for (i = 0; i < k->nplaced; i++)
		if (strcmp(k->placed[i].name, p->name) == 0)
			break;
	if (i == k->nplaced) {
		if (!(arr = kmod_grow(k->placed, k->nplaced, &k->capplaced, sizeof(*arr), 8)))
			goto drop;
		k->placed = arr;
		k->nplaced++;
	} else {
		/* An unwind may hold the old table: kept until kmod_free. */
		if (k->placed[i].orc) {
			if (!(old = realloc(k->old_orc, (k->nold_orc + 1) * sizeof(*old))))
				goto drop;
			k->old_orc = old;
			k->old_orc[k->nold_orc++] = k->placed[i].orc;
		}
		free(k->placed[i].text);
	}
	k->placed[i] = *p;
	return;
drop:
	free(p->text);
	orc_free(p->orc);
}

int kmod_refresh(struct sym *sym, unwind_read_fn read, void *ctx)
{
	struct kmod *k = sym_modules(sym);
	struct seen *seen;
	struct kmod_placed p;
	size_t n, i, j;
	int placed = 0;

	if (!k)
		return -ENOENT;
	pthread_mutex_lock(&k->lock);
	if (!k->layout_state)
		k->layout_state = kmod_guest_layout_of(sym, &k->layout) == 0 ? 1 : -1;
	/* A kernel without modules is asked on every stack with a stray PC: answer fast. */
	if (k->layout_state < 0 || !(seen = calloc(KMOD_GUEST_MAX, sizeof(*seen)))) {
		pthread_mutex_unlock(&k->lock);
		return k->layout_state < 0 ? -ENOENT : -ENOMEM;
	}
	n = walk_list(&k->layout, sym_image_offset(sym), read, ctx, seen);
	for (i = 0; i < n; i++) {
		bool same = false;
		Dwfl_Module *m;

		pthread_mutex_lock(&k->map_lock);
		for (j = 0; j < k->nplaced && !same; j++)
			same = strcmp(k->placed[j].name, seen[i].name) == 0 &&
			       k->placed[j].base == seen[i].base;
		pthread_mutex_unlock(&k->map_lock);
		if (same || !(m = kmod_module_named(k, seen[i].name)) || !place(k, &seen[i], m, &p))
			continue;
		pthread_mutex_lock(&k->map_lock);
		publish(k, &p);
		pthread_mutex_unlock(&k->map_lock);
		placed++;
	}
	/* Modules gone from the list no longer own their addresses. */
	pthread_mutex_lock(&k->map_lock);
	for (j = 0; j < k->nplaced; j++) {
		k->placed[j].live = false;
		for (i = 0; i < n && !k->placed[j].live; i++) {
			k->placed[j].live = strcmp(k->placed[j].name, seen[i].name) == 0 &&
					    k->placed[j].base == seen[i].base;
			/* COMING, LIVE, GOING: sampling follows them; the extable is set by now. */
			if (k->placed[j].live) {
				k->placed[j].state = seen[i].state;
				k->placed[j].extable = seen[i].extable;
				k->placed[j].num_exentries = (uint32_t)seen[i].num_exentries;
			}
		}
	}
	pthread_mutex_unlock(&k->map_lock);
	pthread_mutex_unlock(&k->lock);
	free(seen);
	return placed;
}

/* The live placed module's text section holding @guest; under map_lock. */
static const struct kmod_text *text_at(const struct kmod *k, uint64_t guest,
				       const struct kmod_placed **pp)
{
	size_t i;
	unsigned j;

	for (i = 0; i < k->nplaced; i++) {
		const struct kmod_placed *p = &k->placed[i];

		if (!p->live || guest < p->base || guest >= p->base + p->text_size)
			continue;
		for (j = 0; j < p->ntext; j++)
			if (guest >= p->text[j].guest &&
			    guest < p->text[j].guest + p->text[j].size) {
				if (pp)
					*pp = p;
				return &p->text[j];
			}
	}
	return NULL;
}

bool kmod_guest_to_host(void *mods, uint64_t guest, uint64_t *host)
{
	struct kmod *k = mods;
	const struct kmod_text *t;

	pthread_mutex_lock(&k->map_lock);
	t = text_at(k, guest, NULL);
	if (t)
		*host = t->host + (guest - t->guest);
	pthread_mutex_unlock(&k->map_lock);
	return t != NULL;
}

const struct orc_table *kmod_orc_at(void *ctx, uint64_t ip)
{
	struct kmod *k = sym_modules(ctx);
	const struct kmod_placed *p = NULL;
	const struct orc_table *t = NULL;

	if (!k)
		return NULL;
	pthread_mutex_lock(&k->map_lock);
	if (text_at(k, ip, &p))
		t = p->orc;
	pthread_mutex_unlock(&k->map_lock);
	return t;
}

size_t kmod_live_modules(struct sym *sym, struct kmod_live *out, size_t max)
{
	struct kmod *k = sym_modules(sym);
	size_t i, n = 0;
	unsigned j;

	if (!k)
		return 0;
	pthread_mutex_lock(&k->map_lock);
	for (i = 0; i < k->nplaced && n < max; i++) {
		const struct kmod_placed *p = &k->placed[i];
		struct kmod_live *l = &out[n];

		if (!p->live)
			continue;
		memset(l, 0, sizeof(*l));
		snprintf(l->name, sizeof(l->name), "%s", p->name);
		l->base = p->base;
		l->text_size = p->text_size;
		l->state = (enum kmod_state)p->state;
		l->extable = p->extable;
		l->num_exentries = p->num_exentries;
		for (j = 0; j < p->ntext && j < KMOD_TEXT_MAX; j++) {
			l->text[j].guest = p->text[j].guest;
			l->text[j].size = p->text[j].size;
			memcpy(l->text[j].name, p->text[j].name, sizeof(l->text[j].name));
		}
		l->ntext = j;
		n++;
	}
	pthread_mutex_unlock(&k->map_lock);
	return n;
}

bool kmod_pc_known(struct sym *sym, uint64_t pc)
{
	struct kmod *k = sym_modules(sym);
	uint64_t start, size;
	bool known;

	if (sym_function_at(sym, pc, &start, &size, NULL) == 0)
		return true;
	if (!k)
		return false;
	pthread_mutex_lock(&k->map_lock);
	known = text_at(k, pc, NULL) != NULL;
	pthread_mutex_unlock(&k->map_lock);
	return known;
}

void kmod_placed_free(struct kmod *k)
{
	size_t i;

	for (i = 0; i < k->nplaced; i++) {
		free(k->placed[i].text);
		orc_free(k->placed[i].orc);
	}
	for (i = 0; i < k->nold_orc; i++)
		orc_free(k->old_orc[i]);
	free(k->placed);
	free(k->old_orc);
}
