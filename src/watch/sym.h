/* sym.h: guest addresses to functions, lines and inline chains through libdw. */
#ifndef CSAN_WATCH_SYM_H
#define CSAN_WATCH_SYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdwfl.h>

/* The most frames (inline levels + the function) one address expands to. */
#define SYM_MAX_FRAMES 16

/* sym_lookup flags. */
#define SYM_RETADDR 0x1u /* a return address: look up addr - 1, as unwinders do */
#define SYM_NOCACHE 0x2u /* neither use nor fill the cache (benchmarks) */

/*
 * One source-level frame of an address.  A lookup yields the innermost
 * inlined function first and the function that holds the code last, as
 * eu-addr2line -i and syzbot's symbolized reports list them.  Strings
 * belong to the struct sym and live until sym_close.
 */
struct sym_frame {
	uint64_t addr;	  /* the address asked for (not addr - 1) */
	const char *func; /* function name, NULL when unknown */
	const char *file; /* source file as printed: relative to the source
			   * root when under it (srcpath.h); NULL when unknown */
	const char *file_full; /* the same, absolute (as DWARF has it, normalized) */
	int line, col;	  /* 0 when unknown */
	/* Inline frames: the call site in the next (outer) frame. */
	const char *call_file, *call_file_full;
	int call_line, call_col;
	/* The ELF symbol holding addr, as the kernel's %pS shows it. */
	const char *symbol; /* NULL when no symbol covers addr */
	uint64_t sym_off;   /* addr - symbol start */
	uint64_t sym_size;
	bool inlined;
	const char *module; /* the Linux module holding addr (kmod.h), NULL for the ELF */
};

struct sym;

/*
 * sym_open - load the symbols, DWARF and CFI of the ELF file @path into
 * one Dwfl, kept until sym_close (re-reading DWARF per report is what makes
 * addr2line slow).  The ELF must carry its own debug information; nothing
 * is fetched from elsewhere.  Returns 0 with the handle in @out, or
 * -ENOENT/-EACCES (cannot open @path), -ENOEXEC (not an x86-64 ELF),
 * -EINVAL (libdw refused it) or -ENOMEM, with the reason (the libdw call
 * and dwfl_errmsg) in @why (@whylen bytes).
 */
int sym_open(const char *path, struct sym **out, char *why, size_t whylen);

/* sym_close - release everything sym_open made; NULL is a no-op. */
void sym_close(struct sym *sym);

/*
 * sym_set_source_root - print source paths relative to @dir instead of
 * the root found from the DWARF (srcpath.h); NULL: the found one.  Call
 * before the first lookup.  Returns 0 or -ENOMEM.
 */
int sym_set_source_root(struct sym *sym, const char *dir);

/*
 * sym_set_source_anchor - the source root is the directory @symbol's
 * source file lies in, less @file ("start_kernel", "/init/main.c": a
 * Linux tree), when that holds; else the DWARF's votes.  Found when the
 * root is first needed (the first path printed), not now: the first
 * address-to-line lookup of a vmlinux costs as much as opening it.  Both
 * strings must outlive @sym (literals).  Before the first lookup.
 */
void sym_set_source_anchor(struct sym *sym, const char *symbol, const char *file);

/*
 * sym_source_file - the full path (absolute, normalized) of the source
 * file the line table gives for @addr, into @out (@outlen bytes), without
 * going through the source root.  Returns 0, or -ENOENT when no line
 * covers @addr (or the path does not fit).
 */
int sym_source_file(struct sym *sym, uint64_t addr, char *out, size_t outlen);

/* sym_source_root - the source root paths are printed relative to, or NULL. */
const char *sym_source_root(struct sym *sym);

/*
 * sym_set_image_offset - the guest runs the ELF's image @offset bytes from
 * its link address (a kernel's KASLR offset, found in the running guest):
 * from now on an address in the moved image is looked up at the ELF's
 * (sym_lookup, sym_function_at, sym_source_file, sym_in_entry_text).
 * sym_addr_of still answers with the ELF's own addresses: add the offset
 * before handing one of them to the lookups.
 */
void sym_set_image_offset(struct sym *sym, int64_t offset);

/* sym_image_offset - what sym_set_image_offset set; 0 before. */
int64_t sym_image_offset(const struct sym *sym);

/*
 * sym_in_entry_text - is @addr interrupt entry code (between the symbols
 * __entry_text_start and __entry_text_end)?  False when the ELF has no
 * such symbols.
 */
bool sym_in_entry_text(const struct sym *sym, uint64_t addr);

/* sym_path - the ELF file @sym was opened from. */
const char *sym_path(const struct sym *sym);

/* sym_has_dwarf - whether the ELF has DWARF (otherwise only symbols). */
bool sym_has_dwarf(const struct sym *sym);

/*
 * sym_lookup - the frames of address @addr in @sym's ELF, innermost inline
 * level first, at most @max (>= 1) of them into @frames.  With SYM_RETADDR
 * in @flags the lines and inline chain are those of @addr - 1, the call
 * instruction, while sym_off stays relative to @addr as the kernel prints
 * it.  An address outside the ELF gives one frame with func NULL.
 * Thread-safe; results are cached per address.  Returns the number of
 * frames, or -EINVAL for a bad @max.
 */
int sym_lookup(struct sym *sym, uint64_t addr, unsigned flags, struct sym_frame *frames, int max);

/*
 * sym_function_at - the ELF symbol holding @addr: its start in @start,
 * its size in @size (0 for a symbol without one, such as an assembly
 * label) and its name in @name (may be NULL; valid until sym_close).
 * What the instruction decoder needs to start at a known boundary.
 * Thread-safe.  Returns 0, or -ENOENT when no symbol covers @addr.
 */
int sym_function_at(struct sym *sym, uint64_t addr, uint64_t *start, uint64_t *size,
		    const char **name);

/*
 * sym_addr_of - the address of the ELF symbol called @name (a function as
 * the kernel's %pS names it: "foo", "foo.constprop.0") into @addr, and its
 * ELF size into @size (may be NULL).  Several local symbols can share a
 * name; @size_hint (the kernel's "/0xsize", 0: none) picks the one whose
 * size fits it best.  The reverse of sym_function_at.  Thread-safe.
 * Returns 0, or -ENOENT when no symbol has @name.
 */
int sym_addr_of(struct sym *sym, const char *name, uint64_t size_hint, uint64_t *addr,
		uint64_t *size);

/*
 * sym_member_offset - the byte offset of @member in structure @type as
 * the compilation unit holding address @near defines it (a function of
 * the file whose layout counts), into @offset.  Thread-safe.  Returns 0,
 * or -ENOENT when that unit has no such structure or member (no DWARF,
 * or a bit-field without a byte offset).
 */
int sym_member_offset(struct sym *sym, uint64_t near, const char *type, const char *member,
		      uint64_t *offset);

/*
 * sym_cache_stats - lookups answered from the cache (@hits) and by libdw
 * (@misses) so far.
 */
void sym_cache_stats(struct sym *sym, uint64_t *hits, uint64_t *misses);

/*
 * sym_set_modules, sym_modules - what kmod.c keeps for @sym's Linux
 * modules: a pointer that @release frees at sym_close, and @remap, which
 * gives for a guest address in a module's text the place its .ko has in
 * the Dwfl (false: none), so sym_lookup and sym_function_at see module
 * code at the guest's addresses.  Set once, before the vCPUs run.
 */
void sym_set_modules(struct sym *sym, void *mods, void (*release)(void *),
		     bool (*remap)(void *mods, uint64_t addr, uint64_t *host));
void *sym_modules(const struct sym *sym);

/*
 * sym_dwfl_lock, sym_dwfl_unlock - take and release @sym's Dwfl for a
 * caller that drives libdw itself (the unwinder): libdw is not
 * thread-safe, and all vCPU threads share the one Dwfl.
 */
Dwfl *sym_dwfl_lock(struct sym *sym);
void sym_dwfl_unlock(struct sym *sym);

#endif /* CSAN_WATCH_SYM_H */
