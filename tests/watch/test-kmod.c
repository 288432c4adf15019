/* test-kmod.c: module frames ("func+0x1c/0x80 [mod]") found in a .ko and symbolized. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "watch/kmod.h"
#include "watch/linux_report.h"
#include "watch/orc.h"
#include "watch/sym.h"
#include "../unit/check.h"
#include "kmod-guest.h"
#include "watch-test.h"

static int notes;
static char last_note[512];

static void note(void *ctx, const char *msg)
{
	(void)ctx;
	notes++;
	snprintf(last_note, sizeof(last_note), "%s", msg);
}

static struct sym *open_sym(void)
{
	struct sym *sym = NULL;
	char why[256];

	if (sym_open(symtest_path(), &sym, why, sizeof(why)) != 0)
		fprintf(stderr, "test-kmod: %s\n", why);
	return sym;
}

/* Some address inside fixture_outer symbolizes as the inlined fixture_bump. */
static void test_lookup(struct sym *sym)
{
	struct sym_frame fr[SYM_MAX_FRAMES];
	uint64_t addr = 0, size = 0, off;
	bool inline_seen = false;
	int n;

	CHECK_EQ_U64(kmod_addr_of(sym, "kmod-fixture", "fixture_outer", 0, &addr, &size), 0);
	CHECK(addr >= KMOD_SYNTH_BASE);
	CHECK(size > 0 && size < 4096);
	for (off = 1; off <= size && !inline_seen; off++) {
		n = sym_lookup(sym, addr + off, SYM_RETADDR, fr, SYM_MAX_FRAMES);
		CHECK(n >= 1);
		if (n < 2 || !fr[0].func || strcmp(fr[0].func, "fixture_bump") != 0)
			continue;
		inline_seen = true;
		CHECK(fr[0].inlined);
		CHECK_CONTAINS(fr[0].file, "kmod-fixture.c");
		CHECK(fr[0].line > 0);
		CHECK_CONTAINS(fr[1].func, "fixture_outer");
		CHECK_CONTAINS(fr[1].module, "kmod_fixture");
		CHECK_EQ_U64(fr[1].sym_off, off);
		CHECK_EQ_U64(fr[1].sym_size, size);
		CHECK(fr[1].call_line == 0 && fr[0].call_line > fr[0].line);
	}
	CHECK(inline_seen);
	/* Names with "_" find the "-" file; a function not in it is not found. */
	CHECK_EQ_U64(kmod_addr_of(sym, "kmod_fixture", "mid", 0, &addr, &size), 0);
	CHECK(addr >= KMOD_SYNTH_BASE);
	CHECK_EQ_U64(kmod_addr_of(sym, "kmod_fixture", "no_such_fn", 0, &addr, NULL), -ENOENT);
	/* A missing module is said once, then only refused. */
	CHECK_EQ_U64(notes, 0);
	CHECK_EQ_U64(kmod_addr_of(sym, "absent_mod", "f", 0, &addr, NULL), -ENOENT);
	CHECK_EQ_U64(kmod_addr_of(sym, "absent_mod", "g", 0, &addr, NULL), -ENOENT);
	CHECK_EQ_U64(notes, 1);
	CHECK_CONTAINS(last_note, "absent_mod.ko");
	CHECK_CONTAINS(last_note, KO_DIR);
}

/* A KCSAN report with module frames becomes a record whose PCs are in the .ko. */
static void test_report(struct sym *sym)
{
	static const char *const lines[] = {
		"==================================================================",
		"BUG: KCSAN: data-race in fixture_outer [kmod_fixture] / top",
		"",
		"write to 0xffffffff8255a4c0 of 4 bytes by task 93 on cpu 1:",
		" fixture_outer+0x4/0x20 [kmod_fixture]",
		" mid+0x9/0x10 [kmod_fixture]",
		" mid+0x9/0x20",
		" absent_fn+0x9/0x20 [absent_mod]",
		"",
		"read to 0xffffffff8255a4c0 of 4 bytes by task 94 on cpu 0:",
		" top+0x4/0x20",
		"",
		"Reported by Kernel Concurrency Sanitizer on:",
		"CPU: 0 PID: 94 Comm: t Not tainted 6.1.0 #1",
		"==================================================================",
	};
	struct linux_report_parser *p;
	struct linux_report *lr = NULL;
	struct csan_hc_report rec;
	uint64_t fn, mid_ko, mid_vm;
	unsigned lost = 0;
	char why[256];
	size_t i;

	CHECK(linux_report_parser_new(&p) == 0);
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		if (linux_report_feed(p, lines[i], strlen(lines[i]), &lr) == LINUX_LINE_DONE)
			break;
	CHECK(lr != NULL);
	if (!lr) {
		linux_report_parser_free(p);
		return;
	}
	CHECK_EQ_U64(linux_report_to_record(lr, sym, &rec, &lost, why, sizeof(why)), 0);
	CHECK_EQ_U64(lost, 1); /* absent_mod's frame */
	CHECK_EQ_U64(kmod_addr_of(sym, "kmod_fixture", "fixture_outer", 0, &fn, NULL), 0);
	CHECK_EQ_U64(kmod_addr_of(sym, "kmod_fixture", "mid", 0, &mid_ko, NULL), 0);
	CHECK_EQ_U64(sym_addr_of(sym, "mid", 0, &mid_vm, NULL), 0);
	CHECK_EQ_U64(rec.side[0].ip, fn + 4);
	CHECK_EQ_U64(rec.side[0].nret, 2);
	CHECK_EQ_U64(rec.side[0].ret[0], mid_ko + 9);
	CHECK_EQ_U64(rec.side[0].ret[1], mid_vm + 9);
	linux_report_free(lr);
	linux_report_parser_free(p);
}

/* --- hw mode: a module list in a fake guest memory (kmod-guest.c) ---------- */

#define G_STACK	   0xffffc90000010000ull
#define G_RET	   0xffffffff81000010ull /* a return address into "vmlinux" */
#define G_VML_TEXT 0xffffffff81000000ull

/* fixture_outer's value in the .ko's symbol table: its offset in .text. */
static uint64_t ko_symbol(const char *want)
{
	int fd = open(KO_DIR "/kmod-fixture.ko", O_RDONLY);
	Elf *elf;
	Elf_Scn *scn = NULL;
	uint64_t v = 0;
	GElf_Shdr sh;

	elf_version(EV_CURRENT);
	elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	while (elf && (scn = elf_nextscn(elf, scn)) != NULL) {
		Elf_Data *d = gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB
				      ? elf_getdata(scn, NULL)
				      : NULL;
		size_t i;
		GElf_Sym s;

		for (i = 0; d && i < sh.sh_size / sizeof(Elf64_Sym); i++)
			if (gelf_getsym(d, (int)i, &s) &&
			    strcmp(elf_strptr(elf, sh.sh_link, s.st_name), want) == 0)
				v = s.st_value;
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return v;
}

/*
 * What sampling reads of a placed module: its text sections at guest
 * addresses (the first at its base), and its state, which follows the
 * guest's at each refresh (an unloading module is GOING before it leaves
 * the list).
 */
static void test_live(struct gmem *g, struct sym *sym)
{
	struct kmod_live l[4];
	unsigned i;

	CHECK_EQ_U64(kmod_live_modules(sym, l, 4), 1);
	CHECK_STREQ(l[0].name, "kmod_fixture");
	CHECK_EQ_U64(l[0].base, G_BASE);
	CHECK_EQ_U64(l[0].state, KMOD_LIVE);
	CHECK_EQ_U64(l[0].extable, 0); /* the fake layout has none */
	CHECK(l[0].ntext >= 1);
	CHECK_EQ_U64(l[0].text[0].guest, G_BASE);
	CHECK_STREQ(l[0].text[0].name, ".text");
	for (i = 0; i < l[0].ntext; i++) {
		CHECK(l[0].text[i].size > 0);
		CHECK(l[0].text[i].guest + l[0].text[i].size <= G_BASE + 0x1000);
		CHECK(kmod_pc_known(sym, l[0].text[i].guest));
	}
	gmem_put(g, G_MOD + gmem_layout.off_state, KMOD_GOING);
	CHECK_EQ_U64(kmod_refresh(sym, gmem_read, g), 0);
	CHECK_EQ_U64(kmod_live_modules(sym, l, 4), 1);
	CHECK_EQ_U64(l[0].state, KMOD_GOING);
	gmem_put(g, G_MOD + gmem_layout.off_state, KMOD_LIVE);
	CHECK_EQ_U64(kmod_refresh(sym, gmem_read, g), 0);
	CHECK_EQ_U64(kmod_live_modules(sym, l, 0), 0);
}

static void test_guest(struct sym *sym)
{
	static struct gmem g;
	struct sym_frame fr[SYM_MAX_FRAMES];
	uint64_t off = ko_symbol("fixture_outer"), at = G_BASE + off, start, size, pcs[8];
	const struct orc_table *mt;
	struct orc_table *vml;
	struct csan_regs r;
	struct orc_result res;
	/* "vmlinux": one end-of-stack entry at G_VML_TEXT. */
	int32_t rel = 0;
	uint16_t end[3] = { 0, 0, 1 << 10 };
	int n;

	CHECK(off > 0 || ko_symbol("mid") > 0); /* the symbols were read */
	CHECK(!kmod_pc_known(sym, at));
	/* symtest.elf has no module list: nothing to read. */
	CHECK_EQ_U64(kmod_refresh(sym, gmem_read, &g), (uint64_t)-ENOENT);
	CHECK_EQ_U64(kmod_set_guest_layout(sym, &gmem_layout), 0);
	gmem_module_list(&g, G_BASE);
	CHECK_EQ_U64(kmod_refresh(sym, gmem_read, &g), 1);
	CHECK_EQ_U64(kmod_refresh(sym, gmem_read, &g), 0); /* unchanged: nothing new */
	CHECK(kmod_pc_known(sym, at + 1));
	test_live(&g, sym);
	/* The guest's address symbolizes as the module's function. */
	n = sym_lookup(sym, at + 1, 0, fr, SYM_MAX_FRAMES);
	CHECK(n >= 1);
	CHECK_CONTAINS(fr[n - 1].func, "fixture_outer");
	CHECK_CONTAINS(fr[n - 1].module, "kmod_fixture");
	CHECK_EQ_U64(fr[n - 1].sym_off, 1);
	CHECK_EQ_U64(fr[0].addr, at + 1);
	CHECK_EQ_U64(sym_function_at(sym, at + 3, &start, &size, NULL), 0);
	CHECK_EQ_U64(start, at);
	/* Its ORC entries, at guest addresses: a walk from the module into vmlinux. */
	mt = kmod_orc_at(sym, at);
	CHECK(mt != NULL);
	CHECK_EQ_U64(
		orc_table_new(&rel, G_VML_TEXT, end, 1, ORC_FORMAT_V1, G_VML_TEXT + 0x1000, &vml),
		0);
	memset(&r, 0, sizeof(r));
	r.rip = at;
	r.rsp = G_STACK;
	gmem_put(&g, G_STACK, G_RET);
	n = orc_unwind(vml, &r, gmem_read, &g, kmod_orc_at, sym, pcs, 8, &res);
	CHECK_EQ_U64(n, 2);
	CHECK_EQ_U64(pcs[1], G_RET);
	CHECK_EQ_U64(res.end, ORC_END_STACK);
	orc_free(vml);
	/* Unloaded and loaded again elsewhere: the old place no longer holds it. */
	gmem_module_list(&g, G_BASE + 0x100000);
	CHECK_EQ_U64(kmod_refresh(sym, gmem_read, &g), 1);
	CHECK(!kmod_pc_known(sym, at + 1));
	CHECK(kmod_pc_known(sym, at + 0x100000 + 1));
	CHECK(kmod_orc_at(sym, at) == NULL);
	CHECK(kmod_orc_at(sym, at + 0x100000) != NULL);
}

/* The files a run elsewhere needs: --modules first, then the bzImage's tree, no .git. */
static void touch(const char *dir, const char *name)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f)
		fclose(f);
}

static void test_list(void)
{
	char tmpl[] = "/tmp/test-kmod.XXXXXX", d[600], cmd[700];
	char *top = mkdtemp(tmpl), **paths;
	size_t n, i;
	int a = 0, b = 0;

	CHECK(top != NULL);
	if (!top)
		return;
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s/extra %s/tree/arch/x86/boot %s/tree/drv %s/tree/.git", top, top, top,
		 top);
	CHECK(system(cmd) == 0);
	snprintf(d, sizeof(d), "%s/extra", top);
	touch(d, "a-mod.ko");
	snprintf(d, sizeof(d), "%s/tree", top);
	touch(d, "modules.order");
	snprintf(d, sizeof(d), "%s/tree/drv", top);
	touch(d, "a_mod.ko");
	touch(d, "b.ko.xz");
	touch(d, "notes.txt");
	snprintf(d, sizeof(d), "%s/tree/.git", top);
	touch(d, "c.ko");
	snprintf(d, sizeof(d), "%s/tree/arch/x86/boot/bzImage", top);
	snprintf(cmd, sizeof(cmd), "%s/extra", top);
	CHECK_EQ_U64(kmod_list(d, cmd, &paths, &n), 0);
	CHECK_EQ_U64(n, 2);
	for (i = 0; i < n; i++) {
		a += strstr(paths[i], "/extra/a-mod.ko") != NULL;
		b += strstr(paths[i], "/tree/drv/b.ko.xz") != NULL;
	}
	CHECK(a == 1 && b == 1);
	kmod_list_free(paths, n);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", top);
	CHECK(system(cmd) == 0);
}

/*
 * struct module read from a vmlinux's DWARF, in Linux 6.1's layout
 * (core_layout) and in 6.4's (mem[]), both built from module-layout.c
 * with the members at the same offsets; and a kernel with neither.
 */
static void test_layout_dwarf(void)
{
	static const char *const elves[] = { "tests/watch/kmods/module-layout-6.1.elf",
					     "tests/watch/kmods/module-layout-6.4.elf" };
	struct kmod_guest_layout l;
	uint64_t head;
	struct sym *s;
	char why[256];
	unsigned i;

	for (i = 0; i < 2; i++) {
		if (sym_open(elves[i], &s, why, sizeof(why)) != 0) {
			fprintf(stderr, "test-kmod: %s\n", why);
			CHECK(false);
			continue;
		}
		CHECK_EQ_U64(sym_addr_of(s, "modules", 16, &head, NULL), 0);
		CHECK_EQ_U64(kmod_guest_layout_of(s, &l), 0);
		CHECK_EQ_U64(l.modules, head);
		CHECK_EQ_U64(l.off_state, 0);
		CHECK_EQ_U64(l.off_list, 8);
		CHECK_EQ_U64(l.off_name, 24);
		/* core_layout.base and .text_size; mem[MOD_TEXT].base and .size. */
		CHECK_EQ_U64(l.off_base, 128);
		CHECK_EQ_U64(l.off_text_size, i == 0 ? 140 : 136);
		CHECK_EQ_U64(l.off_num_exentries, 296);
		CHECK_EQ_U64(l.off_extable, 304);
		sym_close(s);
	}
	/* symtest.elf has no module list: nothing to read. */
	s = open_sym();
	if (s) {
		CHECK_EQ_U64(kmod_guest_layout_of(s, &l), -ENOENT);
		sym_close(s);
	}
}

int main(void)
{
	struct kmod_opts o = { .dir = KO_DIR, .note = note };
	struct kmod_opts bad = { .dir = KO_DIR "/kmod-fixture.ko" };
	struct sym *sym = open_sym();
	char why[256];
	char rel[64];

	if (!sym)
		return 1;
	/* Without kmod_attach module frames are not placed. */
	CHECK_EQ_U64(kmod_addr_of(sym, "kmod_fixture", "mid", 0, &(uint64_t){ 0 }, NULL), -ENOENT);
	CHECK_EQ_U64(kmod_attach(sym, &bad, why, sizeof(why)), -ENOTDIR);
	CHECK_CONTAINS(why, "--modules=" KO_DIR "/kmod-fixture.ko");
	bad.dir = "/nonexistent-modules";
	CHECK_EQ_U64(kmod_attach(sym, &bad, why, sizeof(why)), -ENOENT);
	CHECK_CONTAINS(why, "/nonexistent-modules");
	CHECK_EQ_U64(kmod_attach(sym, &o, why, sizeof(why)), 0);
	/* symtest.elf is no Linux: no release to find. */
	CHECK_EQ_U64(kmod_release(sym, rel, sizeof(rel)), -ENOENT);
	test_lookup(sym);
	test_report(sym);
	test_guest(sym);
	sym_close(sym);
	test_list();
	test_layout_dwarf();
	return check_exit_status("test-kmod");
}
