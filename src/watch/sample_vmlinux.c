/* sample_vmlinux.c: a sampling-site table from a Linux vmlinux ELF. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "watch/sample_sites_priv.h"

/*
 * Executable sections freed after boot (x86's vmlinux.lds.S puts them
 * between __init_begin and __init_end; named here too for a kernel
 * without those symbols): a breakpoint there would sit on memory the
 * kernel has given back.
 */
static const char *const freed_sections[] = {
	".init.text",	 ".exit.text",	  ".altinstr_replacement", ".altinstr_aux",
	".meminit.text", ".memexit.text", ".head.text.init",
};

/*
 * Ranges of .text, marked by symbol pairs, whose instructions are not
 * sites (sample_sites.h says why).  __irqentry_text lies inside
 * __entry_text on 6.1 and has its own markers on other versions.
 */
static const struct {
	const char *start, *end;
	enum sample_skip why;
} marked_ranges[] = {
	{ "__entry_text_start", "__entry_text_end", SAMPLE_SKIP_UNSAFE_TEXT },
	{ "__irqentry_text_start", "__irqentry_text_end", SAMPLE_SKIP_UNSAFE_TEXT },
	{ "__noinstr_text_start", "__noinstr_text_end", SAMPLE_SKIP_UNSAFE_TEXT },
	{ "__cpuidle_text_start", "__cpuidle_text_end", SAMPLE_SKIP_UNSAFE_TEXT },
	{ "__kprobes_text_start", "__kprobes_text_end", SAMPLE_SKIP_UNSAFE_TEXT },
	{ "__static_call_text_start", "__static_call_text_end", SAMPLE_SKIP_PATCHED },
	{ "__indirect_thunk_start", "__indirect_thunk_end", SAMPLE_SKIP_PATCHED },
};
#define NMARKED (sizeof(marked_ranges) / sizeof(marked_ranges[0]))

/*
 * Functions that handle breakpoints, exceptions, NMIs, oopses and
 * kprobes, and the runtime of a sanitizer built into the kernel; most of
 * the first kind are noinstr already, these are their callees and
 * helpers.  Prefixes, then names that must match whole.
 */
static const char *const handler_prefixes[] = {
	"exc_",
	"asm_exc_",
	"nmi_",
	"do_nmi",
	"default_do_nmi",
	"kprobe",
	"__kprobe",
	"kretprobe",
	"arch_kprobe",
	"hw_breakpoint",
	"arch_install_hw_breakpoint",
	"arch_uninstall_hw_breakpoint",
	"kgdb",
	"kdb_",
	"oops_",
	"ex_handler_",
	"fixup_exception",
	"kcsan_",
	"__kcsan_",
	"__tsan_",
	"poke_int3_handler",
	"do_int3",
	"do_trap",
	"do_error_trap",
	"handle_bug",
	"report_bug",
	"notify_die",
	"unknown_nmi_error",
	"perf_event_nmi_handler",
};
static const char *const handler_names[] = {
	"die",	 "__die",     "__die_header", "__die_body", "die_addr",
	"panic", "show_regs", "__show_regs",  "show_stack", "show_trace_log_lvl",
};

bool sample_handler_function(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(handler_prefixes) / sizeof(handler_prefixes[0]); i++)
		if (!strncmp(name, handler_prefixes[i], strlen(handler_prefixes[i])))
			return true;
	for (i = 0; i < sizeof(handler_names) / sizeof(handler_names[0]); i++)
		if (!strcmp(name, handler_names[i]))
			return true;
	return false;
}

/* Symbol values the build needs from vmlinux's symbol table. */
struct vmlinux_marks {
	uint64_t start[NMARKED], end[NMARKED];
	uint64_t init_begin, init_end, text, end_of_image;
};

static void note_marker(struct vmlinux_marks *m, const char *name, uint64_t v)
{
	size_t i;

	for (i = 0; i < NMARKED; i++) {
		if (!strcmp(name, marked_ranges[i].start))
			m->start[i] = v;
		else if (!strcmp(name, marked_ranges[i].end))
			m->end[i] = v;
	}
	if (!strcmp(name, "__init_begin"))
		m->init_begin = v;
	else if (!strcmp(name, "__init_end"))
		m->init_end = v;
	else if (!strcmp(name, "_text"))
		m->text = v;
	else if (!strcmp(name, "_end"))
		m->end_of_image = v;
}

/* Function starts, handler functions and the marker symbols from @scn (SHT_SYMTAB). */
static int read_symbols(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct sample_table *t,
			struct vmlinux_marks *m)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t i, n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	GElf_Sym sym;

	for (i = 0; d && i < n; i++) {
		const char *name;

		if (!gelf_getsym(d, (int)i, &sym))
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		note_marker(m, name, sym.st_value);
		if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_value)
			continue;
		if (sample_table_add_function(t, sym.st_value))
			return -ENOMEM;
		if (sym.st_size && sample_handler_function(name) &&
		    sample_table_exclude(t, sym.st_value, sym.st_value + sym.st_size,
					 SAMPLE_SKIP_HANDLER_FUNCTION))
			return -ENOMEM;
	}
	return 0;
}

/*
 * .altinstructions (struct alt_instr, 12 bytes packed in 6.1: s32
 * instr_offset, s32 repl_offset, u16 cpuid, u8 instrlen, u8
 * replacementlen; offsets relative to the field): the original
 * instructions apply_alternatives() may overwrite at boot.
 */
#define ALT_INSTR_SIZE	12
#define ALT_INSTRLEN_AT 10
/* __ex_table (struct exception_table_entry: int insn, fixup, data; insn relative to itself). */
#define EXTABLE_ENTRY_SIZE 12

static int32_t rd_s32(const uint8_t *p)
{
	uint32_t v =
		(uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;

	return (int32_t)v;
}

static int read_patch_tables(Elf_Scn *scn, const GElf_Shdr *sh, const char *name,
			     struct sample_table *t)
{
	bool alt = !strcmp(name, ".altinstructions"), ex = !strcmp(name, "__ex_table");
	Elf_Data *d;
	size_t off;

	if ((!alt && !ex) || sh->sh_type != SHT_PROGBITS)
		return 0;
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf)
		return 0;
	for (off = 0; off + (alt ? ALT_INSTR_SIZE : EXTABLE_ENTRY_SIZE) <= d->d_size;
	     off += alt ? ALT_INSTR_SIZE : EXTABLE_ENTRY_SIZE) {
		const uint8_t *e = (const uint8_t *)d->d_buf + off;
		uint64_t insn = sh->sh_addr + off + (uint64_t)(int64_t)rd_s32(e);
		int rc = alt ? sample_table_exclude(t, insn, insn + e[ALT_INSTRLEN_AT],
						    SAMPLE_SKIP_PATCHED)
			     : sample_table_exclude(t, insn, insn + 1, SAMPLE_SKIP_MAY_FAULT);

		if (rc)
			return rc;
	}
	return 0;
}

static bool is_freed(const char *name, const GElf_Shdr *sh, const struct vmlinux_marks *m)
{
	size_t i;

	for (i = 0; i < sizeof(freed_sections) / sizeof(freed_sections[0]); i++)
		if (!strcmp(name, freed_sections[i]))
			return true;
	return m->init_end && sh->sh_addr >= m->init_begin && sh->sh_addr < m->init_end;
}

/* Walk the sections: @pass 0 symbols and tables, 1 the text. */
static int walk(Elf *elf, size_t shstrndx, int pass, struct sample_table *t,
		struct vmlinux_marks *m, char *why, size_t whylen)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int rc;

	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (pass == 0) {
			rc = sh.sh_type == SHT_SYMTAB ? read_symbols(elf, scn, &sh, t, m)
						      : read_patch_tables(scn, &sh, name, t);
			if (rc) {
				snprintf(why, whylen, "out of memory reading %s", name);
				return rc;
			}
			continue;
		}
		if (sh.sh_type != SHT_PROGBITS ||
		    (sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) != (SHF_ALLOC | SHF_EXECINSTR))
			continue;
		if (is_freed(name, &sh, m)) {
			t->stats.freed_bytes += sh.sh_size;
			t->stats.freed_sections++;
			continue;
		}
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size != sh.sh_size) {
			snprintf(why, whylen, "cannot read section %s: %s", name, elf_errmsg(-1));
			return -EINVAL;
		}
		rc = sample_table_add_code(t, d->d_buf, d->d_size, sh.sh_addr, why, whylen);
		if (rc)
			return rc;
	}
	return 0;
}

static int build(Elf *elf, struct sample_table *t, char *why, size_t whylen)
{
	struct vmlinux_marks m = { 0 };
	GElf_Ehdr eh;
	size_t shstrndx, i;
	int rc;

	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    gelf_getclass(elf) != ELFCLASS64 || eh.e_machine != EM_X86_64) {
		snprintf(why, whylen, "not an x86-64 ELF");
		return -EINVAL;
	}
	if (elf_getshdrstrndx(elf, &shstrndx)) {
		snprintf(why, whylen, "no section names: %s", elf_errmsg(-1));
		return -EINVAL;
	}
	rc = walk(elf, shstrndx, 0, t, &m, why, whylen);
	if (rc)
		return rc;
	for (i = 0; i < NMARKED; i++)
		if (m.start[i] && m.end[i] > m.start[i] &&
		    sample_table_exclude(t, m.start[i], m.end[i], marked_ranges[i].why))
			return -ENOMEM;
	if (m.text && m.end_of_image > m.text)
		sample_table_set_image(t, m.text, m.end_of_image);
	rc = walk(elf, shstrndx, 1, t, &m, why, whylen);
	if (rc)
		return rc;
	if (!t->stats.text_bytes) {
		snprintf(why, whylen, "no executable section to sample");
		return -EINVAL;
	}
	sample_table_sort(t);
	return 0;
}

int sample_table_from_vmlinux(const char *path, struct sample_table **out, char *why, size_t whylen)
{
	struct sample_table *t;
	Elf *elf;
	int fd, rc;

	*out = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		snprintf(why, whylen, "libelf is too old: %s", elf_errmsg(-1));
		return -EINVAL;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		snprintf(why, whylen, "cannot open %s: %s", path, strerror(errno));
		return rc;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	t = sample_table_new();
	if (!elf || !t) {
		snprintf(why, whylen, "%s: %s", path, elf ? "out of memory" : elf_errmsg(-1));
		rc = elf ? -ENOMEM : -EINVAL;
		goto out;
	}
	rc = build(elf, t, why, whylen);
	if (rc == 0) {
		*out = t;
		t = NULL;
	}
out:
	sample_table_free(t);
	if (elf)
		elf_end(elf);
	close(fd);
	return rc;
}
