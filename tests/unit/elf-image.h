/* elf-image.h: a builder for small guest ELF images, valid or broken on purpose. */
#ifndef CSAN_TESTS_ELF_IMAGE_H
#define CSAN_TESTS_ELF_IMAGE_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>

#include "csan/abi.h"

/*
 * test-elf builds its images here, in memory, from one fixed layout: each
 * case starts from the valid image (img_default) and breaks one thing, so a
 * rejection can only come from that one thing.
 *
 *   0x000 ELF header          0x400 notes (PT_NOTE, program header 2)
 *   0x040 program headers     0x500 scenario table (.csan.scenarios)
 *   0x200 text (PT_LOAD 0)    0x600 .shstrtab
 *   0x300 data (PT_LOAD 1)    0x640 section headers
 */
#define OFF_PHDR  0x40
#define OFF_TEXT  0x200
#define OFF_DATA  0x300
#define OFF_NOTE  0x400
#define OFF_SCEN  0x500
#define OFF_SHSTR 0x600
#define OFF_SHDR  0x640
#define IMG_SIZE  (OFF_SHDR + 3 * sizeof(Elf64_Shdr))

#define TEXT	    0x100000ull /* text paddr = vaddr; PVH entry */
#define TEXT_FILESZ 0x100
#define TEXT_MEMSZ  0x1000
#define DATA	    0x200000ull
#define DATA_FILESZ 0x10
#define DATA_MEMSZ  0x800

/* Offsets of strings and code in the text segment. */
#define T_SELFTEST     0x10
#define T_SELFTEST_SUM 0x20
#define T_COUNTER      0x40
#define T_COUNTER_SUM  0x50
#define T_RUN	       0x80
#define T_LONG	       0xa0 /* 48 or 49 'a's, then NUL */
#define T_NOTERM       0xf0 /* 'x' up to the end of the file bytes */

struct img {
	Elf64_Ehdr eh;
	Elf64_Phdr ph[3];
	uint8_t text[TEXT_FILESZ];
	uint8_t data[DATA_FILESZ];
	uint8_t notes[0x100];
	size_t notes_len;
	struct csan_scenario_desc sc[8];
	Elf64_Shdr sh[3];
	size_t len; /* bytes written to the file: less than IMG_SIZE truncates */
};

/* img_default - a valid guest: two PT_LOADs, PVH and ABI notes, two scenarios. */
void img_default(struct img *im);

/*
 * img_write - write @im to a new file under $TMPDIR (or /tmp) and put its
 * name in @path; exits 99 (a hard error to the test driver) on failure.
 */
void img_write(const struct img *im, char *path, size_t pathlen);

/* img_note_add - append a note to the PT_NOTE segment (program header 2), growing p_filesz. */
void img_note_add(struct img *im, const char *name, uint32_t type, const void *desc,
		  uint32_t descsz);
void img_notes_clear(struct img *im);
void img_note_pvh(struct img *im, uint32_t entry);
void img_note_abi(struct img *im, uint32_t version);

/* img_set_scenarios - make the scenario table (section 1) @n entries long. */
void img_set_scenarios(struct img *im, size_t n);

/* img_text_str - put the string @s, with its NUL, at @off in the text segment. */
void img_text_str(struct img *im, size_t off, const char *s);

#endif /* CSAN_TESTS_ELF_IMAGE_H */
