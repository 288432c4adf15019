/* sym.c: guest addresses to functions, lines and inline chains through libdw. */
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdw.h>

#include "watch/srcpath.h"
#include "watch/sym.h"
#include "watch/cu_table.h"
#include "watch/symtab.h"

/*
 * The cache: reports repeat (the same race fires many times, stacks share
 * their outer frames), and a libdw lookup walks DWARF scopes each time.
 * Fixed in size, so memory stays bounded whatever the guest sends, and
 * 4-way set-associative with least-recently-used replacement, since a
 * miss costs a scope walk and a direct-mapped table thrashes on the
 * collisions a few thousand hot addresses already have.
 */
#define SYM_CACHE_SET_BITS 10
#define SYM_CACHE_WAYS	   4
#define SYM_CACHE_SLOTS	   ((1u << SYM_CACHE_SET_BITS) * SYM_CACHE_WAYS)

struct sym_cache_entry {
	uint64_t addr;
	uint64_t used; /* the lookup tick of its last use; 0 = free */
	bool retaddr;
	int n;
	struct sym_frame *frames;
};

struct sym {
	pthread_mutex_t lock; /* the Dwfl, the cache and the indexes */
	Dwfl *dwfl;
	Dwfl_Module *mod; /* the one module: the ELF */
	char *path;
	bool has_dwarf;
	struct srcpath *paths; /* printed and full source paths */
	uint64_t entry_lo, entry_hi; /* [__entry_text_start, __entry_text_end), or 0, 0 */
	struct sym_cache_entry *cache;
	uint64_t hits, misses, tick;
	struct cu_table *cus;  /* each CU's functions by address, built as CUs are met */
	struct symtab *symtab; /* the ELF's symbols by address and by name */
	const char *anchor_symbol, *anchor_file; /* sym_set_source_anchor() */
	uint64_t image_lo, image_hi; /* what KASLR moves: find_image() */
	int64_t image_offset;	      /* sym_set_image_offset(): where the guest runs it */
	void *mods; /* sym_set_modules() */
	void (*mods_release)(void *);
	bool (*mods_remap)(void *mods, uint64_t addr, uint64_t *host);
};

static Dwfl_Module *module_at(struct sym *sym, uint64_t *at);

/*
 * The guest ELF carries its own DWARF: do not look for separate debug
 * files (or ask a debuginfod server) for something the user did not give.
 */
static int find_no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			     Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			     GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	return -1;
}

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = find_no_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* Open @path ourselves first: libdw's errors would not say ENOENT or EACCES. */
static int check_file(const char *path, char *why, size_t whylen)
{
	unsigned char magic[SELFMAG];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got;

	if (fd < 0) {
		int err = errno;

		snprintf(why, whylen, "cannot open %s: %s", path, strerror(err));
		return -err;
	}
	got = read(fd, magic, sizeof(magic));
	close(fd);
	if (got != (ssize_t)sizeof(magic) || memcmp(magic, ELFMAG, SELFMAG) != 0) {
		snprintf(why, whylen, "%s is not an ELF file", path);
		return -ENOEXEC;
	}
	return 0;
}

/* Report @path as the only module and check it is x86-64 code. */
static int report_module(struct sym *sym, const char *path, char *why, size_t whylen)
{
	Dwfl_Module *mod;
	GElf_Ehdr ehdr;
	Dwarf_Addr bias;
	Elf *elf;

	/*
	 * At the ELF's own addresses, which are the guest's: not with
	 * dwfl_report_offline, which would move an ET_DYN image (a PIE build,
	 * the benchmark's own binary) up to a made-up base of its own.
	 */
	dwfl_report_begin(sym->dwfl);
	mod = dwfl_report_elf(sym->dwfl, path, path, -1, 0, true);
	if (!mod) {
		snprintf(why, whylen, "dwfl_report_elf(%s): %s", path, dwfl_errmsg(-1));
		return -EINVAL;
	}
	if (dwfl_report_end(sym->dwfl, NULL, NULL) != 0) {
		snprintf(why, whylen, "dwfl_report_end: %s", dwfl_errmsg(-1));
		return -EINVAL;
	}
	elf = dwfl_module_getelf(mod, &bias);
	if (!elf) {
		snprintf(why, whylen, "dwfl_module_getelf(%s): %s", path, dwfl_errmsg(-1));
		return -EINVAL;
	}
	if (!gelf_getehdr(elf, &ehdr) || ehdr.e_ident[EI_CLASS] != ELFCLASS64 ||
	    ehdr.e_machine != EM_X86_64) {
		snprintf(why, whylen, "%s is not an x86-64 ELF64 file", path);
		return -ENOEXEC;
	}
	sym->has_dwarf = dwfl_module_getdwarf(mod, &bias) != NULL;
	sym->mod = mod;
	return 0;
}

/*
 * Where the interrupt entry code is: Linux and the bundled guest both
 * bracket it with __entry_text_start and __entry_text_end.  From the
 * symbol index, built just before: one pass over the ELF's symbols.
 */
static void find_entry_text(struct sym *sym)
{
	uint64_t lo, hi;

	if (symtab_by_name(sym->symtab, "__entry_text_start", 0, &lo, NULL) ||
	    symtab_by_name(sym->symtab, "__entry_text_end", 0, &hi, NULL))
		return;
	if (lo && hi > lo) {
		sym->entry_lo = lo;
		sym->entry_hi = hi;
	}
}

/*
 * The ELF's address of the guest's @addr: under KASLR the kernel runs its
 * image as one block moved by the offset, and an address in the moved
 * block is looked up where the ELF has it.  Anything else (a module's
 * text, where a module's own remap applies; an address before the offset
 * is known) is the ELF's as it is.
 */
static uint64_t to_image(const struct sym *sym, uint64_t addr)
{
	int64_t off = __atomic_load_n(&sym->image_offset, __ATOMIC_ACQUIRE);
	uint64_t link = addr - (uint64_t)off;

	return off && link >= sym->image_lo && link < sym->image_hi ? link : addr;
}

void sym_set_image_offset(struct sym *sym, int64_t offset)
{
	__atomic_store_n(&sym->image_offset, offset, __ATOMIC_RELEASE);
}

int64_t sym_image_offset(const struct sym *sym)
{
	return __atomic_load_n(&sym->image_offset, __ATOMIC_ACQUIRE);
}

/*
 * The image a kernel moves as one under KASLR: [_text, _end) where the
 * ELF has them (a vmlinux's per-CPU segment sits at address 0, outside
 * it), else all the ELF loads.
 */
static void find_image(struct sym *sym)
{
	uint64_t lo, hi;

	if (symtab_by_name(sym->symtab, "_text", 0, &lo, NULL) == 0 &&
	    symtab_by_name(sym->symtab, "_end", 0, &hi, NULL) == 0 && hi > lo) {
		sym->image_lo = lo;
		sym->image_hi = hi;
		return;
	}
	dwfl_module_info(sym->mod, NULL, &sym->image_lo, &sym->image_hi, NULL, NULL, NULL, NULL);
}

bool sym_in_entry_text(const struct sym *sym, uint64_t addr)
{
	addr = to_image(sym, addr);
	return addr >= sym->entry_lo && addr < sym->entry_hi;
}

/* sym_source_file's work; the caller holds sym->lock. */
static size_t source_file_locked(struct sym *sym, uint64_t addr, char *out, size_t outlen)
{
	Dwfl_Line *line = dwfl_module_getsrc(sym->mod, addr);
	const char *file = line ? dwfl_lineinfo(line, NULL, NULL, NULL, NULL, NULL) : NULL;

	return file ? srcpath_join(dwfl_line_comp_dir(line), file, out, outlen) : 0;
}

/* The root from the anchor (sym_set_source_anchor), if it holds; under sym->lock. */
static bool root_from_anchor(struct sym *sym, struct srcpath *paths)
{
	size_t n, tail = strlen(sym->anchor_file);
	char path[4096];
	uint64_t addr;

	if (symtab_by_name(sym->symtab, sym->anchor_symbol, 0, &addr, NULL) ||
	    !(n = source_file_locked(sym, addr, path, sizeof(path))) || n <= tail ||
	    strcmp(path + n - tail, sym->anchor_file) != 0)
		return false;
	path[n - tail] = '\0';
	return srcpath_set_root(paths, path) == 0;
}

/*
 * The source root, found when srcpath first needs it (under sym->lock:
 * every path is shown under it): the anchor's, else the votes.  Each
 * compilation unit votes (srcpath.h) for the directory it shares with its
 * compilation directory.
 */
static void find_source_root(void *ctx, struct srcpath *paths)
{
	struct sym *sym = ctx;
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;

	if (sym->anchor_symbol && root_from_anchor(sym, paths))
		return;
	while ((cu = dwfl_nextcu(sym->dwfl, cu, &bias)) != NULL) {
		Dwarf_Attribute attr;

		srcpath_vote(paths, dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr)),
			     dwarf_diename(cu));
	}
}

int sym_open(const char *path, struct sym **out, char *why, size_t whylen)
{
	struct sym *sym;
	int err;

	*out = NULL;
	err = check_file(path, why, whylen);
	if (err)
		return err;
	sym = calloc(1, sizeof(*sym));
	if (!sym || !(sym->path = strdup(path)) || !(sym->paths = srcpath_new()) ||
	    !(sym->cache = calloc(SYM_CACHE_SLOTS, sizeof(*sym->cache)))) {
		snprintf(why, whylen, "out of memory loading %s", path);
		err = -ENOMEM;
		goto fail;
	}
	sym->dwfl = dwfl_begin(&offline_callbacks);
	if (!sym->dwfl) {
		snprintf(why, whylen, "dwfl_begin: %s", dwfl_errmsg(-1));
		err = -ENOMEM;
		goto fail;
	}
	err = report_module(sym, path, why, whylen);
	if (!err && ((err = symtab_build(sym->mod, &sym->symtab)) != 0 ||
		     (err = cu_table_new(&sym->cus)) != 0))
		snprintf(why, whylen, "out of memory indexing the symbols of %s", path);
	if (err)
		goto fail;
	srcpath_defer_votes(sym->paths, find_source_root, sym);
	find_entry_text(sym);
	find_image(sym);
	pthread_mutex_init(&sym->lock, NULL);
	*out = sym;
	return 0;
fail:
	if (sym) {
		symtab_free(sym->symtab);
		cu_table_free(sym->cus);
		if (sym->dwfl)
			dwfl_end(sym->dwfl);
		free(sym->cache);
		srcpath_free(sym->paths);
		free(sym->path);
		free(sym);
	}
	return err;
}

void sym_close(struct sym *sym)
{
	size_t i;

	if (!sym)
		return;
	if (sym->mods_release)
		sym->mods_release(sym->mods);
	for (i = 0; i < SYM_CACHE_SLOTS; i++)
		free(sym->cache[i].frames);
	free(sym->cache);
	cu_table_free(sym->cus);
	symtab_free(sym->symtab);
	dwfl_end(sym->dwfl);
	pthread_mutex_destroy(&sym->lock);
	srcpath_free(sym->paths);
	free(sym->path);
	free(sym);
}

const char *sym_path(const struct sym *sym)
{
	return sym->path;
}

bool sym_has_dwarf(const struct sym *sym)
{
	return sym->has_dwarf;
}

int sym_set_source_root(struct sym *sym, const char *dir)
{
	return srcpath_set_root(sym->paths, dir);
}

void sym_set_source_anchor(struct sym *sym, const char *symbol, const char *file)
{
	sym->anchor_symbol = symbol;
	sym->anchor_file = file;
}

int sym_source_file(struct sym *sym, uint64_t addr, char *out, size_t outlen)
{
	size_t n;

	pthread_mutex_lock(&sym->lock);
	n = source_file_locked(sym, to_image(sym, addr), out, outlen);
	pthread_mutex_unlock(&sym->lock);
	return n ? 0 : -ENOENT;
}

const char *sym_source_root(struct sym *sym)
{
	const char *root;

	pthread_mutex_lock(&sym->lock); /* the first call may take the votes */
	root = srcpath_root(sym->paths);
	pthread_mutex_unlock(&sym->lock);
	return root;
}

/*
 * The ELF symbol holding @at: from the index, or from libdwfl for what the
 * index leaves to it (labels without a size).  Returns its name, or NULL.
 */
static const char *symbol_at(struct sym *sym, Dwfl_Module *mod, uint64_t at, uint64_t *start,
			     uint64_t *size)
{
	const char *name = symtab_at(sym->symtab, at, start, size);
	GElf_Off off;
	GElf_Sym es;

	if (name)
		return name;
	name = dwfl_module_addrinfo(mod, at, &off, &es, NULL, NULL, NULL);
	if (name) {
		*start = at - off;
		*size = es.st_size;
	}
	return name;
}

/* The ELF symbol around @at; @ret makes the offset relative to at + 1. */
static void fill_symbol(struct sym *sym, Dwfl_Module *mod, uint64_t at, bool ret,
			struct sym_frame *f)
{
	uint64_t start, size;
	const char *name = symbol_at(sym, mod, at, &start, &size);

	if (!name)
		return;
	f->symbol = name;
	f->sym_off = at - start + (ret ? 1 : 0);
	f->sym_size = size;
}

/* The line table's position of @at: where the innermost frame is. */
static void fill_line(struct sym *sym, Dwfl_Module *mod, uint64_t at, struct sym_frame *f)
{
	Dwfl_Line *line = dwfl_module_getsrc(mod, at);
	const char *file;
	int lineno = 0, col = 0;

	if (!line)
		return;
	file = dwfl_lineinfo(line, NULL, &lineno, &col, NULL, NULL);
	f->file = srcpath_show(sym->paths, dwfl_line_comp_dir(line), file, &f->file_full);
	f->line = lineno;
	f->col = col;
}

/* A DIE's name, following DW_AT_abstract_origin as inline instances need. */
static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));

	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
	return name;
}

static int die_udata(Dwarf_Die *die, int at)
{
	Dwarf_Attribute attr;
	Dwarf_Word v;

	if (dwarf_formudata(dwarf_attr(die, at, &attr), &v) != 0 || v > INT32_MAX)
		return 0;
	return (int)v;
}

/* The CU facts call sites need: its file table and directory. */
struct cu_files {
	Dwarf_Files *files;
	size_t nfiles;
	const char *comp_dir;
};

/* DW_AT_call_file/line/column of inline instance @die. */
static void call_site(struct sym *sym, Dwarf_Die *die, const struct cu_files *cu,
		      struct sym_frame *f)
{
	int idx = die_udata(die, DW_AT_call_file);

	f->call_file = NULL;
	f->call_file_full = NULL;
	if (cu->files && (size_t)idx < cu->nfiles)
		f->call_file =
			srcpath_show(sym->paths, cu->comp_dir,
				     dwarf_filesrc(cu->files, idx, NULL, NULL), &f->call_file_full);
	f->call_line = die_udata(die, DW_AT_call_line);
	f->call_col = die_udata(die, DW_AT_call_column);
}

/* Tags whose DIEs hold code, and so maybe inline instances, in C. */
static bool holds_code(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
	       tag == DW_TAG_lexical_block;
}

/* The child of @parent that holds code at @pc, into @out. */
static bool child_at(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *out)
{
	Dwarf_Die c;

	if (dwarf_child(parent, &c) != 0)
		return false;
	do {
		if (holds_code(dwarf_tag(&c)) && dwarf_haspc(&c, pc) == 1) {
			*out = c;
			return true;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/*
 * The scopes around @pc, innermost first, by going down from the CU only
 * through the DIEs that hold @pc: the function, then its inline instances
 * and blocks, physically nested, so an inline instance is followed by its
 * caller.  dwarf_getscopes gives the same chain but visits every DIE of the
 * CU on the way, which made it nearly all of a lookup's time; the first
 * step is a binary search in the CU's function index.  Returns the count,
 * 0 if no function holds @pc.
 */
static int descend(struct sym *sym, Dwarf_Die *cudie, Dwarf_Addr pc, Dwarf_Die **scopes)
{
	Dwarf_Die chain[64], *out;
	int n = 0, i, found = cu_table_fn_at(sym->cus, cudie, pc, &chain[0]);

	/* Without memory for the index, the walk still finds it. */
	if (found < 0 ? !child_at(cudie, pc, &chain[0]) : !found)
		return 0;
	if (dwarf_tag(&chain[0]) != DW_TAG_subprogram)
		return 0;
	for (n = 1; n < 64 && child_at(&chain[n - 1], pc, &chain[n]); n++)
		;
	out = malloc((size_t)n * sizeof(*out));
	if (!out)
		return 0;
	for (i = 0; i < n; i++)
		out[i] = chain[n - 1 - i];
	*scopes = out;
	return n;
}

/*
 * The scopes around @at, innermost first, ending with the function (the
 * physical nesting; see descend).  When the quick descent finds no function
 * (a layout it does not know, such as functions inside namespaces), fall
 * back to dwarf_getscopes, re-derived from its innermost scope with
 * dwarf_getscopes_die so an inline instance is followed by its caller
 * rather than by its abstract definition, as eu-addr2line does.  Returns
 * the count (0 without DWARF) with *scopes to free.
 */
static int scopes_at(struct sym *sym, Dwfl_Module *mod, uint64_t at, Dwarf_Die **scopes,
		     struct cu_files *cu)
{
	Dwarf_Addr bias;
	Dwarf_Die *cudie = dwfl_module_addrdie(mod, at, &bias);
	Dwarf_Attribute attr;
	Dwarf_Die inner;
	int n;

	*scopes = NULL;
	if (!cudie)
		return 0;
	n = descend(sym, cudie, at - bias, scopes);
	if (n <= 0) {
		n = dwarf_getscopes(cudie, at - bias, scopes);
		if (n <= 0)
			return 0;
		inner = (*scopes)[0];
		free(*scopes);
		*scopes = NULL;
		n = dwarf_getscopes_die(&inner, scopes);
		if (n <= 0)
			return 0;
	}
	if (dwarf_getsrcfiles(cudie, &cu->files, &cu->nfiles) != 0)
		cu->files = NULL;
	cu->comp_dir = dwarf_formstring(dwarf_attr(cudie, DW_AT_comp_dir, &attr));
	return n;
}

/*
 * Expand @base (symbol and innermost line filled in) into its inline
 * chain in @fr (SYM_MAX_FRAMES long).  Each inline level sits at the
 * current position; its call site becomes the position of the next one.
 */
static int inline_chain(struct sym *sym, Dwfl_Module *mod, uint64_t at,
			const struct sym_frame *base, struct sym_frame *fr)
{
	struct cu_files cu = { 0 };
	struct sym_frame cur = *base;
	const char *subprogram = NULL;
	Dwarf_Die *scopes;
	int i, n = 0, ns = scopes_at(sym, mod, at, &scopes, &cu);

	for (i = 0; i < ns; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_subprogram) {
			subprogram = die_name(&scopes[i]);
			break;
		}
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		/* Past the limit, overwrite the middle levels: the innermost ones
		 * and the last call site into the function stay right. */
		if (n == SYM_MAX_FRAMES - 1)
			n--;
		fr[n] = cur;
		fr[n].func = die_name(&scopes[i]);
		fr[n].inlined = true;
		call_site(sym, &scopes[i], &cu, &fr[n]);
		cur.file = fr[n].call_file;
		cur.file_full = fr[n].call_file_full;
		cur.line = fr[n].call_line;
		cur.col = fr[n].call_col;
		n++;
	}
	free(scopes);
	/* The function as the kernel names it: its ELF symbol (foo.isra.0). */
	fr[n] = cur;
	fr[n].func = base->symbol ? base->symbol : subprogram;
	fr[n].inlined = false;
	return n + 1;
}

/* The frames of @addr straight from libdw, into @fr (SYM_MAX_FRAMES). */
static int lookup_dwfl(struct sym *sym, uint64_t addr, bool ret, struct sym_frame *fr)
{
	uint64_t at = ret ? addr - 1 : addr;
	struct sym_frame base = { .addr = addr };
	Dwfl_Module *mod = module_at(sym, &at);

	if (!mod) {
		fr[0] = base;
		return 1;
	}
	fill_symbol(sym, mod, at, ret, &base);
	fill_line(sym, mod, at, &base);
	/* Another module than the ELF's own: a Linux module's .ko (kmod.h). */
	if (mod != sym->mod)
		base.module = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
	return inline_chain(sym, mod, at, &base, fr);
}

/*
 * The entry for (@addr, @ret) in its set if cached (*hit set), else the
 * way to replace: a free one or the least recently used.
 */
static struct sym_cache_entry *cache_find(struct sym *sym, uint64_t addr, bool ret, bool *hit)
{
	uint64_t h = (addr ^ (ret ? 0x5bd1e995u : 0)) * 0x9e3779b97f4a7c15ull;
	struct sym_cache_entry *set =
		&sym->cache[(h >> (64 - SYM_CACHE_SET_BITS)) * SYM_CACHE_WAYS];
	struct sym_cache_entry *victim = set;
	unsigned i;

	for (i = 0; i < SYM_CACHE_WAYS; i++) {
		if (set[i].used && set[i].addr == addr && set[i].retaddr == ret) {
			*hit = true;
			return &set[i];
		}
		if (set[i].used < victim->used)
			victim = &set[i];
	}
	*hit = false;
	return victim;
}

/* Copy @n frames to the caller, keeping the function frame if @max cuts. */
static int copy_out(const struct sym_frame *src, int n, struct sym_frame *dst, int max)
{
	if (n <= max) {
		memcpy(dst, src, n * sizeof(*src));
		return n;
	}
	memcpy(dst, src, (max - 1) * sizeof(*src));
	dst[max - 1] = src[n - 1];
	return max;
}

/* sym_lookup at the ELF's address @addr. */
static int lookup_image(struct sym *sym, uint64_t addr, unsigned flags, struct sym_frame *frames,
			int max)
{
	struct sym_frame fr[SYM_MAX_FRAMES];
	bool ret = flags & SYM_RETADDR;
	struct sym_cache_entry *e = NULL;
	struct sym_frame *copy;
	int n;

	pthread_mutex_lock(&sym->lock);
	sym->tick++;
	if (!(flags & SYM_NOCACHE)) {
		bool hit;

		e = cache_find(sym, addr, ret, &hit);
		if (hit) {
			sym->hits++;
			e->used = sym->tick;
			n = copy_out(e->frames, e->n, frames, max);
			pthread_mutex_unlock(&sym->lock);
			return n;
		}
	}
	sym->misses++;
	n = lookup_dwfl(sym, addr, ret, fr);
	/* Without memory for the cache the answer is still right, just not kept. */
	if (e && (copy = malloc((size_t)n * sizeof(*copy)))) {
		memcpy(copy, fr, (size_t)n * sizeof(*copy));
		free(e->frames);
		*e = (struct sym_cache_entry){
			.addr = addr, .used = sym->tick, .retaddr = ret, .n = n, .frames = copy
		};
	}
	pthread_mutex_unlock(&sym->lock);
	return copy_out(fr, n, frames, max);
}

int sym_lookup(struct sym *sym, uint64_t addr, unsigned flags, struct sym_frame *frames, int max)
{
	/* Cached by the ELF's address: the same answer whatever the offset. */
	uint64_t at = to_image(sym, addr);
	int i, n;

	if (max < 1)
		return -EINVAL;
	n = lookup_image(sym, at, flags, frames, max);
	for (i = 0; at != addr && i < n; i++)
		frames[i].addr = addr;
	return n;
}

int sym_function_at(struct sym *sym, uint64_t addr, uint64_t *start, uint64_t *size,
		    const char **name)
{
	const char *found = NULL;
	uint64_t at = to_image(sym, addr);
	Dwfl_Module *mod;

	pthread_mutex_lock(&sym->lock);
	mod = module_at(sym, &at);
	if (mod)
		found = symbol_at(sym, mod, at, start, size);
	pthread_mutex_unlock(&sym->lock);
	/* A module's function, where the guest has it. */
	if (found)
		*start -= at - addr;
	if (!found)
		return -ENOENT;
	if (name)
		*name = found;
	return 0;
}

int sym_addr_of(struct sym *sym, const char *name, uint64_t size_hint, uint64_t *addr,
		uint64_t *size)
{
	/* The index does not change after sym_open: no lock needed. */
	return symtab_by_name(sym->symtab, name, size_hint, addr, size);
}

void sym_cache_stats(struct sym *sym, uint64_t *hits, uint64_t *misses)
{
	pthread_mutex_lock(&sym->lock);
	*hits = sym->hits;
	*misses = sym->misses;
	pthread_mutex_unlock(&sym->lock);
}

void sym_set_modules(struct sym *sym, void *mods, void (*release)(void *),
		     bool (*remap)(void *mods, uint64_t addr, uint64_t *host))
{
	sym->mods = mods;
	sym->mods_release = release;
	sym->mods_remap = remap;
}

/* The Dwfl module for @*at, moving @*at to a module's place if it is in one's text. */
static Dwfl_Module *module_at(struct sym *sym, uint64_t *at)
{
	Dwfl_Module *mod = dwfl_addrmodule(sym->dwfl, *at);
	uint64_t host;

	if (!mod && sym->mods_remap && sym->mods_remap(sym->mods, *at, &host)) {
		mod = dwfl_addrmodule(sym->dwfl, host);
		if (mod)
			*at = host;
	}
	return mod;
}

void *sym_modules(const struct sym *sym)
{
	return sym->mods;
}

Dwfl *sym_dwfl_lock(struct sym *sym)
{
	pthread_mutex_lock(&sym->lock);
	return sym->dwfl;
}

void sym_dwfl_unlock(struct sym *sym)
{
	pthread_mutex_unlock(&sym->lock);
}

/* The definition (not a declaration) of structure @name among @die's children. */
static bool find_struct(Dwarf_Die *die, const char *name, Dwarf_Die *out)
{
	Dwarf_Die child;
	Dwarf_Attribute a;
	const char *n;

	if (dwarf_child(die, &child) != 0)
		return false;
	do {
		if (dwarf_tag(&child) != DW_TAG_structure_type ||
		    dwarf_attr(&child, DW_AT_declaration, &a))
			continue;
		n = dwarf_diename(&child);
		if (n && strcmp(n, name) == 0) {
			*out = child;
			return true;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

int sym_member_offset(struct sym *sym, uint64_t near, const char *type, const char *member,
		      uint64_t *offset)
{
	Dwarf_Die *cudie, st, m;
	Dwarf_Attribute a;
	Dwarf_Word off;
	Dwarf_Addr bias;
	const char *n;
	int rc = -ENOENT;

	pthread_mutex_lock(&sym->lock);
	cudie = sym->mod ? dwfl_module_addrdie(sym->mod, near, &bias) : NULL;
	if (!cudie || !find_struct(cudie, type, &st) || dwarf_child(&st, &m) != 0)
		goto out;
	do {
		if (dwarf_tag(&m) != DW_TAG_member || !(n = dwarf_diename(&m)) ||
		    strcmp(n, member) != 0)
			continue;
		if (!dwarf_attr(&m, DW_AT_data_member_location, &a) ||
		    dwarf_formudata(&a, &off) != 0)
			break;
		*offset = off;
		rc = 0;
		break;
	} while (dwarf_siblingof(&m, &m) == 0);
out:
	pthread_mutex_unlock(&sym->lock);
	return rc;
}
