/* test-elf.c: the guest ELF loader accepts a good image and names the field in every rejection. */
#include "config.h"

#include <dirent.h>
#include <elf.h>
#include <gelf.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "csan/abi.h"
#include "csan/pvh.h"
#include "vmm/image/elf_guest.h"
#include "vmm/guest/profile.h"
#include "check.h"

/* The version this tree speaks, as the messages spell it. */
#define ABI_STR_(v) #v
#define ABI_STR_X(v) ABI_STR_(v)
#define ABI_STR ABI_STR_X(CSAN_ABI_VERSION)
#include "elf-image.h"

static int case_skipped;

#define CHECK_RC(rc, want)                                                                         \
	do {                                                                                       \
		int r_ = (rc), w_ = (want);                                                        \
		check_count++;                                                                     \
		if (r_ != w_) {                                                                    \
			check_failures++;                                                          \
			fprintf(stderr, "%s:%d: %s returned %d (%s), expected %d (%s)\n",          \
				__FILE__, __LINE__, #rc, r_, strerror(-r_), w_, strerror(-w_));    \
		}                                                                                  \
	} while (0)

/* The message starts with the image's path, then names the field. */
static void check_why(const char *why, const char *path, const char *need1, const char *need2)
{
	CHECK(strncmp(why, path, strlen(path)) == 0 && why[strlen(path)] == ':');
	if (need1)
		CHECK_CONTAINS(why, need1);
	if (need2)
		CHECK_CONTAINS(why, need2);
	CHECK(strchr(why, '\n') == NULL);
	if (getenv("TEST_ELF_VERBOSE")) /* to read every message the user could see */
		fprintf(stderr, "    %s\n", why);
}

/* Opens @im, which must be refused with @rc and a message holding @need1 and @need2. */
static void expect_reject(const struct img *im, int rc, const char *need1, const char *need2)
{
	char path[PATH_MAX], why[512];
	struct elf_guest g;

	img_write(im, path, sizeof(path));
	CHECK_RC(elf_guest_open(path, &g, why, sizeof(why)), rc);
	check_why(why, path, need1, need2);
	/* A failed open leaves nothing to release, and closing is harmless. */
	CHECK(g.elf == NULL && g.fd == -1 && g.path == NULL && g.segs == NULL);
	elf_guest_close(&g);
	unlink(path);
}

/* Opens @im, which must be accepted; the caller closes @g and unlinks @path. */
static bool expect_open(const struct img *im, struct elf_guest *g, char *path, size_t pathlen)
{
	char why[512];
	int rc;

	img_write(im, path, pathlen);
	rc = elf_guest_open(path, g, why, sizeof(why));
	CHECK_RC(rc, 0);
	if (rc) {
		fprintf(stderr, "  message: %s\n", why);
		unlink(path);
	}
	return rc == 0;
}

/* --- accepted images ------------------------------------------------------ */

static void check_loaded(const struct img *im, const uint8_t *ram)
{
	size_t i, bad = 0;

	CHECK(ram[TEXT - 1] == 0xaa); /* nothing below the image is touched */
	CHECK(memcmp(ram + TEXT, im->text, TEXT_FILESZ) == 0);
	for (i = TEXT_FILESZ; i < TEXT_MEMSZ; i++)
		bad += ram[TEXT + i] != 0;
	CHECK(bad == 0); /* text bss zeroed */
	CHECK(ram[TEXT + TEXT_MEMSZ] == 0xaa);
	CHECK(memcmp(ram + DATA, im->data, DATA_FILESZ) == 0);
	for (i = DATA_FILESZ, bad = 0; i < DATA_MEMSZ; i++)
		bad += ram[DATA + i] != 0;
	CHECK(bad == 0); /* data bss zeroed */
	CHECK(ram[DATA + DATA_MEMSZ] == 0xaa);
}

/* Load @g into RAM poisoned with 0xaa and check it holds @im's image. */
static void load_and_check(struct elf_guest *g, const struct img *im)
{
	const uint64_t ram_size = 4 << 20;
	uint8_t *ram = malloc(ram_size);
	char why[512];

	if (!ram)
		return;
	memset(ram, 0xaa, ram_size);
	CHECK_RC(elf_guest_load(g, ram, ram_size, why, sizeof(why)), 0);
	check_loaded(im, ram);
	free(ram);
}

static void test_valid(void)
{
	char path[PATH_MAX], why[512];
	struct elf_guest g;
	struct img im;

	img_default(&im);
	if (!expect_open(&im, &g, path, sizeof(path)))
		return;
	CHECK(strcmp(g.path, path) == 0);
	CHECK_EQ_U64(g.pvh_entry, TEXT);
	CHECK_EQ_U64(g.abi_version, CSAN_ABI_VERSION);
	CHECK(guest_profile_pick(&g, GUEST_AUTO, why, sizeof(why)) == &csan_profile);
	CHECK_EQ_U64(g.nsegs, 2);
	CHECK_EQ_U64(g.segs[0].paddr, TEXT);
	CHECK_EQ_U64(g.segs[0].filesz, TEXT_FILESZ);
	CHECK_EQ_U64(g.segs[0].memsz, TEXT_MEMSZ);
	CHECK_EQ_U64(g.segs[0].offset, OFF_TEXT);
	CHECK(g.segs[0].flags == (PF_R | PF_X) && g.segs[0].phdr == 0);
	CHECK_EQ_U64(g.segs[1].paddr, DATA);
	CHECK(g.segs[1].phdr == 1);
	CHECK_EQ_U64(g.image_start, TEXT);
	CHECK_EQ_U64(g.image_end, DATA + DATA_MEMSZ);

	CHECK_EQ_U64(g.nscenarios, 2);
	CHECK(strcmp(g.scenarios[0].name, "selftest") == 0);
	CHECK(strcmp(g.scenarios[0].summary, "checks that the VMM works") == 0);
	CHECK_EQ_U64(g.scenarios[0].run, TEXT + T_RUN);
	CHECK(g.scenarios[0].flags == 0);
	CHECK(strcmp(g.scenarios[1].name, "counter-nolock") == 0);
	CHECK(strcmp(g.scenarios[1].summary, "two CPUs?increment") == 0); /* tab masked */
	CHECK(g.scenarios[1].flags == CSAN_SCENARIO_TEST_ONLY);
	CHECK(elf_guest_find_scenario(&g, "selftest") == &g.scenarios[0]);
	CHECK(elf_guest_find_scenario(&g, "counter-nolock") == &g.scenarios[1]);
	CHECK(elf_guest_find_scenario(&g, "counter") == NULL);
	CHECK(elf_guest_find_scenario(&g, NULL) == NULL);

	CHECK_RC(elf_guest_check_fits(&g, 64 << 20, why, sizeof(why)), 0);
	CHECK_RC(elf_guest_check_fits(&g, DATA + DATA_MEMSZ, why, sizeof(why)), 0);
	load_and_check(&g, &im);
	elf_guest_close(&g);
	elf_guest_close(&g); /* twice is harmless */
	CHECK(g.fd == -1 && g.path == NULL);
	unlink(path);
}

/*
 * The image rebuilt under a running csan-vmm: truncated (and rewritten)
 * after the open.  The loader read it into memory, so loading it and
 * reading its scenario table still work, with the bytes seen at the open,
 * and nothing touches a mapped page past the new end of file (SIGBUS).
 */
static void test_truncated_after_open(void)
{
	char path[PATH_MAX];
	struct elf_guest g;
	struct img im;

	img_default(&im);
	if (!expect_open(&im, &g, path, sizeof(path)))
		return;
	CHECK(truncate(path, 0) == 0);
	load_and_check(&g, &im);
	CHECK(elf_guest_find_scenario(&g, "selftest") == &g.scenarios[0]);
	elf_guest_close(&g);
	unlink(path);
}

static void test_valid_pvh_desc8(void)
{
	uint64_t entry = TEXT + 8;
	char path[PATH_MAX];
	struct elf_guest g;
	struct img im;

	img_default(&im);
	img_notes_clear(&im);
	img_note_abi(&im, CSAN_ABI_VERSION);
	img_note_add(&im, PVH_NOTE_NAME, XEN_ELFNOTE_PHYS32_ENTRY, &entry, sizeof(entry));
	img_note_add(&im, "GNU", 3, "build-id", 8); /* other notes are skipped */
	if (!expect_open(&im, &g, path, sizeof(path)))
		return;
	CHECK_EQ_U64(g.pvh_entry, TEXT + 8);
	elf_guest_close(&g);
	unlink(path);
}

/*
 * A PVH kernel without the csan ABI note opens as a plain PVH kernel
 * (abi_version 0): --guest=auto boots it as Linux, --guest=csan refuses
 * it with what to do.
 */
static void test_valid_no_abi_note(void)
{
	char path[PATH_MAX], why[512];
	struct elf_guest g;
	struct img im;

	img_default(&im);
	img_notes_clear(&im);
	img_note_pvh(&im, TEXT);
	if (!expect_open(&im, &g, path, sizeof(path)))
		return;
	CHECK_EQ_U64(g.abi_version, 0);
	CHECK(guest_profile_pick(&g, GUEST_AUTO, why, sizeof(why)) == &linux_profile);
	CHECK(guest_profile_pick(&g, GUEST_LINUX, why, sizeof(why)) == &linux_profile);
	CHECK(guest_profile_pick(&g, GUEST_CSAN, why, sizeof(why)) == NULL);
	CHECK_CONTAINS(why, "no csan-vmm ABI note (this csan-vmm speaks ABI " ABI_STR ")");
	CHECK_CONTAINS(why, "built for csan-vmm");
	elf_guest_close(&g);
	unlink(path);
}

/* A kernel stripped of its section headers boots, without scenarios. */
static void test_valid_no_sections(void)
{
	char path[PATH_MAX];
	struct elf_guest g;
	struct img im;

	img_default(&im);
	im.eh.e_shoff = 0;
	im.eh.e_shnum = 0;
	im.eh.e_shstrndx = 0;
	if (!expect_open(&im, &g, path, sizeof(path)))
		return;
	CHECK_EQ_U64(g.nscenarios, 0);
	CHECK(elf_guest_find_scenario(&g, "selftest") == NULL);
	elf_guest_close(&g);
	unlink(path);
}

/* CSAN_SCENARIO_NAME_MAX characters is the longest name allowed. */
static void test_valid_longest_name(void)
{
	char path[PATH_MAX];
	struct elf_guest g;
	struct img im;

	img_default(&im);
	memset(im.text + T_LONG, 'a', CSAN_SCENARIO_NAME_MAX);
	im.sc[1].name = TEXT + T_LONG;
	if (!expect_open(&im, &g, path, sizeof(path)))
		return;
	CHECK_EQ_U64(strlen(g.scenarios[1].name), CSAN_SCENARIO_NAME_MAX);
	elf_guest_close(&g);
	unlink(path);
}

/* --- the file itself ------------------------------------------------------- */

static void test_nonexistent(void)
{
	const char *path = "/nonexistent/csan-test-elf/guest.elf";
	char why[512];
	struct elf_guest g;

	CHECK_RC(elf_guest_open(path, &g, why, sizeof(why)), -ENOENT);
	check_why(why, path, "cannot open", "No such file");
	elf_guest_close(&g);
}

static void test_directory(void)
{
	const char *dir = getenv("TMPDIR");
	char why[512];
	struct elf_guest g;

	dir = dir && *dir ? dir : "/tmp";
	CHECK_RC(elf_guest_open(dir, &g, why, sizeof(why)), -EISDIR);
	check_why(why, dir, "directory", NULL);
}

/*
 * Root reads mode-0 files, so as root the open runs in a child that has
 * dropped to nobody; the child's failed checks come back as its status.
 */
static void test_unreadable(void)
{
	char path[PATH_MAX], why[512];
	struct elf_guest g;
	struct img im;
	int failures = check_failures;
	bool child = false;
	int status = 0;
	pid_t pid = 0;

	img_default(&im);
	img_write(&im, path, sizeof(path));
	chmod(path, 0);
	if (geteuid() == 0) {
		fflush(NULL);
		pid = fork();
		if (pid == 0) {
			child = true;
			if (setgid(65534) || setuid(65534))
				_exit(77);
		}
	}
	if (pid < 0) {
		case_skipped = 1;
	} else if (pid == 0) {
		CHECK_RC(elf_guest_open(path, &g, why, sizeof(why)), -EACCES);
		check_why(why, path, "cannot open", "readable");
		if (child)
			_exit(check_failures != failures);
	} else {
		waitpid(pid, &status, 0);
		check_count++;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
			case_skipped = 1;
		else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			check_failures++;
	}
	unlink(path);
}

/*
 * Rejections: each breaks one thing in the valid image and names the
 * return code and two pieces of the message (the field, and the value or
 * the advice) that must appear.
 */
struct reject_case {
	const char *name;
	void (*breakit)(struct img *im);
	int rc;
	const char *need1, *need2;
};

static void brk_empty(struct img *im)
{
	im->len = 0;
}

static void brk_not_elf(struct img *im)
{
	memcpy(im->eh.e_ident, "#!/bin/sh\n", 10);
}

static void brk_short_ident(struct img *im)
{
	im->len = 10;
}

static void brk_elfclass32(struct img *im)
{
	im->eh.e_ident[EI_CLASS] = ELFCLASS32;
}

static void brk_big_endian(struct img *im)
{
	im->eh.e_ident[EI_DATA] = ELFDATA2MSB;
}

static void brk_short_header(struct img *im)
{
	im->len = 40;
}

static void brk_machine(struct img *im)
{
	im->eh.e_machine = EM_386;
}

static void brk_type(struct img *im)
{
	im->eh.e_type = ET_DYN;
}

static void brk_phentsize(struct img *im)
{
	im->eh.e_phentsize = 32;
}

static void brk_no_phdrs(struct img *im)
{
	im->eh.e_phnum = 0;
}

/* The file ends in the middle of program header 1. */
static void brk_truncated_phdrs(struct img *im)
{
	im->len = OFF_PHDR + sizeof(Elf64_Phdr) + 20;
}

static void brk_truncated_shdrs(struct img *im)
{
	im->eh.e_shoff = IMG_SIZE - sizeof(Elf64_Shdr);
}

static void brk_load_past_eof(struct img *im)
{
	im->ph[1].p_offset = IMG_SIZE - 8;
}

static void brk_load_offset_overflow(struct img *im)
{
	im->ph[0].p_offset = UINT64_MAX - 8;
}

static void brk_filesz_gt_memsz(struct img *im)
{
	im->ph[0].p_memsz = TEXT_FILESZ - 1;
}

static void brk_below_1mib(struct img *im)
{
	im->ph[1].p_paddr = 0xf0000;
}

static void brk_above_ram_limit(struct img *im)
{
	im->ph[1].p_paddr = CSAN_RAM_LIMIT - DATA_MEMSZ + 1;
}

static void brk_paddr_overflow(struct img *im)
{
	im->ph[1].p_paddr = UINT64_MAX - 0x100;
}

static void brk_overlap(struct img *im)
{
	im->ph[1].p_paddr = TEXT + TEXT_MEMSZ - 1; /* one byte into the text's bss */
}

/* Named in program header order even when the later one starts lower. */
static void brk_overlap_reversed(struct img *im)
{
	im->ph[0].p_paddr = DATA + DATA_MEMSZ - 1;
}

static void brk_no_load(struct img *im)
{
	im->ph[0].p_type = PT_NULL;
	im->ph[1].p_type = PT_NULL;
}

static void brk_no_pvh_note(struct img *im)
{
	img_notes_clear(im);
	img_note_abi(im, CSAN_ABI_VERSION);
}

static void brk_pvh_desc_size(struct img *im)
{
	uint8_t desc[6] = { 0 };

	img_notes_clear(im);
	img_note_add(im, PVH_NOTE_NAME, XEN_ELFNOTE_PHYS32_ENTRY, desc, sizeof(desc));
	img_note_abi(im, CSAN_ABI_VERSION);
}

/* The entry must be code: not the data segment, not the text's bss. */
static void brk_pvh_entry_data(struct img *im)
{
	img_notes_clear(im);
	img_note_pvh(im, DATA);
	img_note_abi(im, CSAN_ABI_VERSION);
}

static void brk_pvh_entry_bss(struct img *im)
{
	img_notes_clear(im);
	img_note_pvh(im, TEXT + TEXT_FILESZ);
	img_note_abi(im, CSAN_ABI_VERSION);
}

static void brk_pvh_two_entries(struct img *im)
{
	img_note_pvh(im, TEXT + 4);
}

static void brk_abi_999(struct img *im)
{
	img_notes_clear(im);
	img_note_pvh(im, TEXT);
	img_note_abi(im, 999);
}

/* Every version found is listed, the matching one too. */
static void brk_abi_several(struct img *im)
{
	img_note_abi(im, 999);
}

static void brk_abi_desc_size(struct img *im)
{
	uint64_t v = CSAN_ABI_VERSION;

	img_notes_clear(im);
	img_note_pvh(im, TEXT);
	img_note_add(im, CSAN_NOTE_NAME, CSAN_NOTE_ABI, &v, sizeof(v));
}

/* The last descriptor runs past p_filesz. */
static void brk_malformed_note(struct img *im)
{
	im->ph[2].p_filesz -= 2;
}

static void brk_scen_size(struct img *im)
{
	im->sh[1].sh_size = 40;
}

static void brk_scen_nobits(struct img *im)
{
	im->sh[1].sh_type = SHT_NOBITS;
}

static void brk_scen_past_eof(struct img *im)
{
	img_set_scenarios(im, 0x40);
}

static void brk_scen_bad_char(struct img *im)
{
	img_text_str(im, T_COUNTER, "counter_nolock");
}

static void brk_scen_empty_name(struct img *im)
{
	im->sc[0].name = TEXT + T_SELFTEST + 8; /* the NUL after "selftest" */
}

static void brk_scen_long_name(struct img *im)
{
	memset(im->text + T_LONG, 'a', CSAN_SCENARIO_NAME_MAX + 1);
	im->sc[1].name = TEXT + T_LONG;
}

/* Strings must be in a segment's file bytes: not outside, not in bss. */
static void brk_scen_name_outside(struct img *im)
{
	im->sc[0].name = 0x300000;
}

static void brk_scen_summary_bss(struct img *im)
{
	im->sc[1].summary = TEXT + TEXT_FILESZ;
}

static void brk_scen_unterminated(struct img *im)
{
	im->sc[1].name = TEXT + T_NOTERM;
}

static void brk_scen_duplicate(struct img *im)
{
	im->sc[1].name = TEXT + T_SELFTEST;
}

static void brk_scen_run_not_code(struct img *im)
{
	im->sc[0].run = DATA;
}

#define BROKEN(name, rc, need1, need2)                                                             \
	{                                                                                          \
#name, brk_##name, rc, need1, need2                                                \
	}

static const struct reject_case rejects[] = {
	/* the file and its identification */
	BROKEN(empty, -ENOEXEC, "empty", "not an ELF image"),
	BROKEN(not_elf, -ENOEXEC, "not an ELF file", "e_ident"),
	BROKEN(short_ident, -ENOEXEC, "e_ident", "truncated"),
	BROKEN(elfclass32, -ENOEXEC, "e_ident[EI_CLASS]", "ELFCLASS32"),
	BROKEN(big_endian, -ENOEXEC, "e_ident[EI_DATA]", "little-endian"),
	BROKEN(short_header, -ENOEXEC, "ELF64 header", "truncated"),
	/* the ELF header */
	BROKEN(machine, -ENOEXEC, "e_machine is 3 (EM_386)", "EM_X86_64"),
	BROKEN(type, -ENOEXEC, "e_type", "ET_DYN"),
	BROKEN(phentsize, -ENOEXEC, "e_phentsize is 32", "56"),
	BROKEN(no_phdrs, -ENOEXEC, "e_phnum is 0", "PT_LOAD"),
	BROKEN(truncated_phdrs, -ENOEXEC, "e_phoff+e_phnum*e_phentsize", "truncated"),
	BROKEN(truncated_shdrs, -ENOEXEC, "e_shoff+e_shnum*e_shentsize", "truncated"),
	/* program headers */
	BROKEN(load_past_eof, -ENOEXEC, "program header 1: p_offset+p_filesz", "truncated"),
	BROKEN(load_offset_overflow, -ENOEXEC, "program header 0: p_offset+p_filesz",
	       "past the end"),
	BROKEN(filesz_gt_memsz, -ENOEXEC, "program header 0: PT_LOAD p_filesz (0x100)",
	       "p_memsz (0xff)"),
	BROKEN(below_1mib, -ENOEXEC, "program header 1: PT_LOAD p_paddr 0xf0000", "1 MiB"),
	BROKEN(above_ram_limit, -ENOEXEC, "program header 1: PT_LOAD p_paddr+p_memsz",
	       "CSAN_RAM_LIMIT"),
	BROKEN(paddr_overflow, -ENOEXEC, "p_paddr+p_memsz", "CSAN_RAM_LIMIT"),
	BROKEN(overlap, -ENOEXEC, "program header 0 [0x100000, 0x101000) and program header 1",
	       "overlap"),
	BROKEN(overlap_reversed, -ENOEXEC,
	       "program header 0 [0x2007ff, 0x2017ff) and program header 1", "overlap"),
	BROKEN(no_load, -ENOEXEC, "no PT_LOAD", "nothing to load"),
	/* notes */
	BROKEN(no_pvh_note, -ENOEXEC, "not a PVH kernel", "XEN_ELFNOTE_PHYS32_ENTRY"),
	BROKEN(pvh_desc_size, -ENOEXEC, "program header 2: the PVH entry note",
	       "6-byte descriptor"),
	BROKEN(pvh_entry_data, -ENOEXEC, "PVH entry 0x200000", "PF_X"),
	BROKEN(pvh_entry_bss, -ENOEXEC, "PVH entry 0x100100", "PF_X"),
	BROKEN(pvh_two_entries, -ENOEXEC, "two PVH entry notes", "0x100000 and 0x100004"),
	BROKEN(abi_999, -EPROTO, "guest ABI version 999, this csan-vmm speaks ABI " ABI_STR,
	       "rebuild the guest from the same tree"),
	BROKEN(abi_several, -EPROTO, "ABI version " ABI_STR ", ABI version 999", "speaks ABI " ABI_STR),
	BROKEN(abi_desc_size, -EPROTO, "ABI note has a 8-byte descriptor", "expected 4"),
	BROKEN(malformed_note, -ENOEXEC, "program header 2: malformed note", "p_filesz"),
	/* the scenario table */
	BROKEN(scen_size, -ENOEXEC, ".csan.scenarios", "sh_size 0x28 is not a multiple of 32"),
	BROKEN(scen_nobits, -ENOEXEC, ".csan.scenarios", "SHT_NOBITS"),
	BROKEN(scen_past_eof, -ENOEXEC, "sh_offset+sh_size", "truncated"),
	BROKEN(scen_bad_char, -ENOEXEC, ".csan.scenarios[1]: name \"counter\" has byte 0x5f",
	       "[a-z0-9-]"),
	BROKEN(scen_empty_name, -ENOEXEC, ".csan.scenarios[0]: name is empty", NULL),
	BROKEN(scen_long_name, -ENOEXEC,
	       ".csan.scenarios[1]: name \"aaaaaaaaaaaaaaaa...\" is 49 characters",
	       "CSAN_SCENARIO_NAME_MAX"),
	BROKEN(scen_name_outside, -ENOEXEC, ".csan.scenarios[0]: name 0x300000",
	       "file bytes of any PT_LOAD"),
	BROKEN(scen_summary_bss, -ENOEXEC, ".csan.scenarios[1]: summary 0x100100",
	       "file bytes of any PT_LOAD"),
	BROKEN(scen_unterminated, -ENOEXEC, ".csan.scenarios[1]: name at 0x1000f0", "no NUL"),
	BROKEN(scen_duplicate, -ENOEXEC, ".csan.scenarios[0] and [1]: duplicate name \"selftest\"",
	       NULL),
	BROKEN(scen_run_not_code, -ENOEXEC, ".csan.scenarios[0] (selftest): run 0x200000", "PF_X"),
};

static void run_reject(const struct reject_case *r)
{
	struct img im;

	img_default(&im);
	r->breakit(&im);
	expect_reject(&im, r->rc, r->need1, r->need2);
}

/* --- fitting and loading ------------------------------------------------------- */

static void test_too_small_ram(void)
{
	char path[PATH_MAX], why[512];
	struct elf_guest g;
	struct img im;

	img_default(&im);
	if (!expect_open(&im, &g, path, sizeof(path)))
		return;
	CHECK_RC(elf_guest_check_fits(&g, TEXT + 0x800, why, sizeof(why)), -EFBIG);
	check_why(why, path, "program header 0 (PT_LOAD [0x100000, 0x101000))", "-m 32M");
	CHECK_RC(elf_guest_check_fits(&g, DATA + DATA_MEMSZ - 1, why, sizeof(why)), -EFBIG);
	check_why(why, path, "program header 1", "-m");
	elf_guest_close(&g);
	unlink(path);
}

/* elf_guest_load checks again, and writes nothing when a segment does not fit. */
static void test_load_too_small(void)
{
	const size_t ram_size = DATA; /* the data segment starts just past the end */
	char path[PATH_MAX], why[512];
	struct elf_guest g;
	struct img im;
	size_t i, touched = 0;
	uint8_t *ram;

	img_default(&im);
	ram = malloc(ram_size);
	if (!ram || !expect_open(&im, &g, path, sizeof(path))) {
		CHECK(ram != NULL);
		free(ram);
		return;
	}
	memset(ram, 0xaa, ram_size);
	CHECK_RC(elf_guest_load(&g, ram, ram_size, why, sizeof(why)), -EFBIG);
	check_why(why, path, "program header 1", NULL);
	for (i = 0; i < ram_size; i++)
		touched += ram[i] != 0xaa;
	CHECK(touched == 0);
	CHECK_RC(elf_guest_load(&g, NULL, ram_size, why, sizeof(why)), -EINVAL);
	elf_guest_close(&g);
	free(ram);
	unlink(path);
}

/* A short message buffer truncates the message and nothing else; none at all is fine. */
static void test_short_why(void)
{
	char path[PATH_MAX], why[8];
	struct elf_guest g;
	struct img im;

	img_default(&im);
	im.eh.e_machine = EM_386;
	img_write(&im, path, sizeof(path));
	memset(why, 'z', sizeof(why));
	CHECK_RC(elf_guest_open(path, &g, why, sizeof(why)), -ENOEXEC);
	CHECK(why[sizeof(why) - 1] == '\0');
	elf_guest_close(&g);
	CHECK_RC(elf_guest_open(path, &g, NULL, 0), -ENOEXEC);
	elf_guest_close(&g);
	unlink(path);
}

/* Open descriptors, or -1 when /proc is not there to say. */
static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static int fds_at_start;

/* Every case closed what it opened, so the loader closed its descriptor. */
static void test_no_fd_leak(void)
{
	if (fds_at_start < 0) {
		case_skipped = 1;
		return;
	}
	CHECK_EQ_U64(count_fds(), fds_at_start);
}

/*
 * The bundled guest, built with DWARF: the loader leaves its .debug_*
 * bytes unread (zeros in the copy), reads all else, and loads the
 * segments as the file has them.
 */
static void test_dwarf_left_out(void)
{
	const char *path = GUEST_ELF;
	struct elf_guest g;
	char why[512];
	Elf *e = NULL;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstrndx, i, ndebug = 0, nother = 0, nonzero;
	uint8_t *file = NULL, *ram = NULL;
	const uint64_t ram_size = 64ull << 20;
	FILE *f;
	long size = 0;

	if (access(path, R_OK)) {
		fprintf(stderr, "  %s not built: case not run\n", path);
		case_skipped = 1;
		return;
	}
	CHECK_RC(elf_guest_open(path, &g, why, sizeof(why)), 0);
	f = fopen(path, "rb");
	CHECK(f && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0);
	if (!f || g.fd < 0)
		goto out;
	file = malloc((size_t)size);
	CHECK(file && fread(file, 1, (size_t)size, f) == (size_t)size);
	CHECK_EQ_U64(g.image_size, (uint64_t)size);
	e = elf_memory((char *)file, (size_t)size);
	CHECK(e && elf_getshdrstrndx(e, &shstrndx) == 0);
	while (e && (scn = elf_nextscn(e, scn)) && gelf_getshdr(scn, &sh)) {
		const char *name = elf_strptr(e, shstrndx, sh.sh_name);

		if (sh.sh_type == SHT_NOBITS || !sh.sh_size || !name)
			continue;
		if (strncmp(name, ".debug_", 7) == 0) {
			for (i = 0, nonzero = 0; i < sh.sh_size; i++)
				nonzero += g.image[sh.sh_offset + i] != 0;
			CHECK_EQ_U64(nonzero, 0);
			ndebug++;
		} else {
			CHECK(memcmp(g.image + sh.sh_offset, file + sh.sh_offset, sh.sh_size) == 0);
			nother++;
		}
	}
	CHECK(ndebug > 0 && nother > 0);
	ram = calloc(1, ram_size);
	CHECK_RC(elf_guest_load(&g, ram, ram_size, why, sizeof(why)), 0);
	for (i = 0; ram && i < g.nsegs; i++)
		CHECK(memcmp(ram + g.segs[i].paddr, file + g.segs[i].offset, g.segs[i].filesz) == 0);
out:
	if (e)
		elf_end(e);
	if (f)
		fclose(f);
	free(file);
	free(ram);
	elf_guest_close(&g);
}

static void report(const char *prefix, const char *name, int failures_before)
{
	printf("%s %s%s\n",
	       check_failures != failures_before ? "FAIL"
	       : case_skipped			 ? "skip"
						 : "ok  ",
	       prefix, name);
}

static void run_case(const char *name, void (*fn)(void))
{
	int before = check_failures;

	case_skipped = 0;
	fn();
	report("", name, before);
}

#define CASE(fn) run_case(#fn, fn)

int main(void)
{
	size_t i;

	/* Failures go to stderr; line buffering keeps them next to their case. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	fds_at_start = count_fds();
	CASE(test_valid);
	CASE(test_truncated_after_open);
	CASE(test_valid_pvh_desc8);
	CASE(test_valid_no_sections);
	CASE(test_valid_no_abi_note);
	CASE(test_valid_longest_name);
	CASE(test_dwarf_left_out);
	CASE(test_nonexistent);
	CASE(test_directory);
	CASE(test_unreadable);
	for (i = 0; i < sizeof(rejects) / sizeof(rejects[0]); i++) {
		int before = check_failures;

		case_skipped = 0;
		run_reject(&rejects[i]);
		report("reject_", rejects[i].name, before);
	}
	CASE(test_too_small_ram);
	CASE(test_load_too_small);
	CASE(test_short_why);
	CASE(test_no_fd_leak);
	return check_exit_status("test-elf");
}
