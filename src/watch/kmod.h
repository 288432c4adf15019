/* kmod.h: Linux module frames ("func+0x1c/0x80 [mod]") symbolized from mod.ko. */
#ifndef CSAN_WATCH_KMOD_H
#define CSAN_WATCH_KMOD_H

#include <stddef.h>
#include <stdint.h>

#include "watch/orc.h"
#include "watch/sym.h"
#include "watch/unwind.h"

/*
 * Linux prints a frame in a module as "func+0xoff/0xsize [mod]".  The
 * code is in mod.ko, a relocatable ELF with its own symbols and DWARF:
 * found by name in the directories below, it joins the struct sym's Dwfl
 * as one more module (libdwfl lays out and relocates an ET_REL file
 * itself), so such a frame gets an address that sym_lookup and the
 * report pipeline symbolize like any other: file:line and inline frames,
 * with the module's name in sym_frame.module.
 *
 * Where mod.ko is looked for, in this order, the first hit winning
 * ("-" and "_" in names are the same, as for modprobe; .ko.xz, .ko.gz
 * and .ko.zst too):
 *   1. the --modules directory, searched recursively, when given;
 *   2. the kernel build tree the vmlinux sits in (a directory holding
 *      modules.order or Module.symvers; for a kernel image under
 *      arch/x86/boot/, the tree above it), or the one named by a file
 *      "build-dir" beside it (tools/linux/build-vmlinux.sh's cache);
 *   3. /lib/modules/RELEASE, RELEASE read from the vmlinux's linux_banner.
 * The directories are walked once, at the first module frame.
 *
 * In soft mode the host does not know where the guest loaded a module,
 * so it places each .ko at a made-up address of its own, in a range no
 * x86-64 kernel uses (KMOD_SYNTH_BASE up); only the frame's name and
 * offset, which the kernel printed, matter there.
 */
#define KMOD_SYNTH_BASE 0xffffe80000000000ull

struct kmod_opts {
	const char *dir; /* --modules=DIR; NULL: the default places only */
	/* Told once per module whose .ko is not found (may be NULL). */
	void (*note)(void *ctx, const char *msg);
	void *note_ctx;
};

/*
 * kmod_attach - make @sym (a vmlinux) able to place module frames, from
 * the places above.  Returns 0, -ENOENT or -ENOTDIR when @o->dir is not a
 * directory one can read (the reason, naming it, in @why), or -ENOMEM.
 */
int kmod_attach(struct sym *sym, const struct kmod_opts *o, char *why, size_t whylen);

/*
 * kmod_addr_of - the address of function @func of module @module as @sym
 * now places it (loading mod.ko the first time), into @addr, and its ELF
 * size into @size (may be NULL); @size_hint (the kernel's "/0xsize", 0:
 * none) picks among local functions of one name.  Thread-safe.  Returns
 * 0, -ENOENT (no kmod_attach, no such .ko, no such function in it), or
 * -EINVAL (the .ko could not be read; said once through the note).
 */
int kmod_addr_of(struct sym *sym, const char *module, const char *func, uint64_t size_hint,
		 uint64_t *addr, uint64_t *size);

/*
 * hw mode: the host unwinds a trapping vCPU's stack itself, so a module
 * frame is a real guest address.  kmod_refresh reads the guest's list of
 * loaded modules (struct module's list, state, name and where its core
 * text is: core_layout.base and .text_size up to 6.3, mem[MOD_TEXT]'s
 * base and size from 6.4; their offsets from the vmlinux's DWARF),
 * loads each one's .ko, and lays its core text sections out as
 * the kernel's layout_sections did (text first, in section order, .init
 * left out), so a guest address in a module maps to the .ko's place in
 * the Dwfl (sym_lookup and sym_function_at follow that map) and the
 * module's ORC entries (.orc_unwind_ip's relocations) get guest IPs for
 * the unwinder.
 */
struct kmod_guest_layout {
	uint64_t modules; /* the address of the list head "modules" */
	uint64_t off_list, off_state, off_name, off_base, off_text_size;
	/* struct module's extable and num_exentries; 0 and 0: not known (sampling only). */
	uint64_t off_extable, off_num_exentries;
};

/*
 * kmod_guest_layout_of - where @sym's kernel keeps its module list and a
 * struct module's fields, from the vmlinux's DWARF (the layouts of Linux
 * up to 6.3 and from 6.4 on).  Returns 0, or -ENOENT: no module list, no
 * DWARF for struct module, or a layout not known here.
 */
int kmod_guest_layout_of(struct sym *sym, struct kmod_guest_layout *l);

/*
 * kmod_set_guest_layout - use @l instead of the vmlinux's DWARF (tests,
 * kernels without DWARF for struct module).  Returns 0 or -ENOENT (no
 * kmod_attach).
 */
int kmod_set_guest_layout(struct sym *sym, const struct kmod_guest_layout *l);

/*
 * kmod_refresh - read the guest's module list through @read(@ctx, ...)
 * and place the modules not placed yet (or loaded again elsewhere).  Call
 * without @sym's locks held, from the thread whose vCPU @ctx is.  Returns
 * how many were placed now (0: nothing new), or -ENOENT when the vmlinux
 * has no module list or no kmod_attach was made.
 */
int kmod_refresh(struct sym *sym, unwind_read_fn read, void *ctx);

/* enum module_state (include/linux/module.h), as kmod_live_modules gives it. */
enum kmod_state { KMOD_LIVE = 0, KMOD_COMING = 1, KMOD_GOING = 2, KMOD_UNFORMED = 3 };

#define KMOD_TEXT_MAX	      32 /* text sections of one module */
#define KMOD_SECTION_NAME_MAX 32 /* longer section names are cut */

/*
 * One module the guest has loaded and kmod has placed (its .ko found), as
 * the last kmod_refresh saw it: what sampling (--watch=sample) needs to
 * decode its text from guest memory.  The text sections are the core
 * ones, at their guest addresses, without the zero-filled gaps the
 * kernel's layout leaves between them (they would decode as memory
 * accesses).
 */
struct kmod_live {
	char name[64];
	uint64_t base, text_size;
	enum kmod_state state;
	uint64_t extable;	/* struct module's extable (guest address), or 0 */
	uint32_t num_exentries; /* its entries (struct exception_table_entry) */
	unsigned ntext;
	struct {
		uint64_t guest, size;
		char name[KMOD_SECTION_NAME_MAX];
	} text[KMOD_TEXT_MAX];
};

/*
 * kmod_live_modules - the placed modules in the guest's list at the last
 * kmod_refresh, at most @max of them into @out.  Modules whose .ko was
 * not found are not there (nothing can name their functions).  Returns
 * how many.
 */
size_t kmod_live_modules(struct sym *sym, struct kmod_live *out, size_t max);

/*
 * kmod_pc_known - whether @pc is in the vmlinux's functions or in a
 * placed module's text: a PC that is not asks for a kmod_refresh.
 */
bool kmod_pc_known(struct sym *sym, uint64_t pc);

/*
 * kmod_orc_at - an orc_more_fn (@ctx the struct sym): the ORC table of the
 * placed module whose text holds @ip, or NULL.  Takes only kmod's map
 * lock, so the unwinder may call it holding the sym's.
 */
const struct orc_table *kmod_orc_at(void *ctx, uint64_t ip);

/*
 * kmod_list - the .ko files kmod_attach would find for the vmlinux at
 * @vmlinux under @dir (may be NULL) and its build tree (not
 * /lib/modules), one per module name, the first found winning: what a
 * run elsewhere (the emulated host) needs copied.  *@paths is a malloc'd
 * array of @*n malloc'd paths (free with kmod_list_free).  Returns 0 or
 * -ENOMEM.
 */
int kmod_list(const char *vmlinux, const char *dir, char ***paths, size_t *n);
void kmod_list_free(char **paths, size_t n);

/*
 * kmod_release - the kernel release ("6.1.192") in the vmlinux's
 * linux_banner, into @out.  Returns 0, or -ENOENT.
 */
int kmod_release(struct sym *sym, char *out, size_t outlen);

#endif /* CSAN_WATCH_KMOD_H */
