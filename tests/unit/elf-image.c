/* elf-image.c: build small guest ELF images for the loader's unit test. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csan/abi.h"
#include "csan/pvh.h"
#include "elf-image.h"

static const char shstrtab[] = "\0" CSAN_SCENARIO_SECTION "\0.shstrtab";

void img_note_add(struct img *im, const char *name, uint32_t type, const void *desc,
		  uint32_t descsz)
{
	Elf64_Nhdr nh = { .n_namesz = (uint32_t)strlen(name) + 1,
			  .n_descsz = descsz,
			  .n_type = type };
	uint8_t *p = im->notes + im->notes_len;

	if (im->notes_len + sizeof(nh) + 2 * 4 + nh.n_namesz + descsz > sizeof(im->notes))
		abort(); /* a test asks for more notes than the layout has room for */
	memcpy(p, &nh, sizeof(nh));
	memcpy(p + sizeof(nh), name, nh.n_namesz);
	p += sizeof(nh) + ((nh.n_namesz + 3) & ~3u);
	memcpy(p, desc, descsz);
	im->notes_len += sizeof(nh) + ((nh.n_namesz + 3) & ~3u) + ((descsz + 3) & ~3u);
	im->ph[2].p_filesz = im->ph[2].p_memsz = im->notes_len;
}

void img_notes_clear(struct img *im)
{
	memset(im->notes, 0, sizeof(im->notes));
	im->notes_len = 0;
	im->ph[2].p_filesz = im->ph[2].p_memsz = 0;
}

void img_note_pvh(struct img *im, uint32_t entry)
{
	img_note_add(im, PVH_NOTE_NAME, XEN_ELFNOTE_PHYS32_ENTRY, &entry, sizeof(entry));
}

void img_note_abi(struct img *im, uint32_t version)
{
	img_note_add(im, CSAN_NOTE_NAME, CSAN_NOTE_ABI, &version, sizeof(version));
}

void img_set_scenarios(struct img *im, size_t n)
{
	im->sh[1].sh_size = n * sizeof(struct csan_scenario_desc);
}

static Elf64_Phdr phdr(uint32_t type, uint32_t flags, uint64_t off, uint64_t addr, uint64_t filesz,
		       uint64_t memsz)
{
	return (Elf64_Phdr){ .p_type = type,
			     .p_flags = flags,
			     .p_offset = off,
			     .p_vaddr = addr,
			     .p_paddr = addr,
			     .p_filesz = filesz,
			     .p_memsz = memsz,
			     .p_align = type == PT_LOAD ? 0x1000 : 4 };
}

void img_text_str(struct img *im, size_t off, const char *s)
{
	memcpy(im->text + off, s, strlen(s) + 1);
}

void img_default(struct img *im)
{
	memset(im, 0, sizeof(*im));
	memcpy(im->eh.e_ident, ELFMAG, SELFMAG);
	im->eh.e_ident[EI_CLASS] = ELFCLASS64;
	im->eh.e_ident[EI_DATA] = ELFDATA2LSB;
	im->eh.e_ident[EI_VERSION] = EV_CURRENT;
	im->eh.e_type = ET_EXEC;
	im->eh.e_machine = EM_X86_64;
	im->eh.e_version = EV_CURRENT;
	im->eh.e_entry = TEXT;
	im->eh.e_phoff = OFF_PHDR;
	im->eh.e_shoff = OFF_SHDR;
	im->eh.e_ehsize = sizeof(Elf64_Ehdr);
	im->eh.e_phentsize = sizeof(Elf64_Phdr);
	im->eh.e_phnum = 3;
	im->eh.e_shentsize = sizeof(Elf64_Shdr);
	im->eh.e_shnum = 3;
	im->eh.e_shstrndx = 2;
	im->ph[0] = phdr(PT_LOAD, PF_R | PF_X, OFF_TEXT, TEXT, TEXT_FILESZ, TEXT_MEMSZ);
	im->ph[1] = phdr(PT_LOAD, PF_R | PF_W, OFF_DATA, DATA, DATA_FILESZ, DATA_MEMSZ);
	im->ph[2] = phdr(PT_NOTE, PF_R, OFF_NOTE, 0, 0, 0);

	memset(im->text, 0x90, T_SELFTEST); /* nops at the entry */
	img_text_str(im, T_SELFTEST, "selftest");
	img_text_str(im, T_SELFTEST_SUM, "checks that the VMM works");
	img_text_str(im, T_COUNTER, "counter-nolock");
	img_text_str(im, T_COUNTER_SUM, "two CPUs\tincrement");
	memset(im->text + T_RUN, 0xc3, 0x10);
	memset(im->text + T_NOTERM, 'x', TEXT_FILESZ - T_NOTERM);
	memset(im->data, 0x5a, sizeof(im->data));

	img_note_pvh(im, TEXT);
	img_note_abi(im, CSAN_ABI_VERSION);

	im->sc[0] = (struct csan_scenario_desc){ TEXT + T_SELFTEST, TEXT + T_SELFTEST_SUM,
						 TEXT + T_RUN, 0, 0 };
	im->sc[1] = (struct csan_scenario_desc){ TEXT + T_COUNTER, TEXT + T_COUNTER_SUM,
						 TEXT + T_RUN + 8, CSAN_SCENARIO_TEST_ONLY, 0 };
	im->sh[1] = (Elf64_Shdr){ .sh_name = 1,
				  .sh_type = SHT_PROGBITS,
				  .sh_flags = SHF_ALLOC,
				  .sh_offset = OFF_SCEN,
				  .sh_addralign = 8 };
	img_set_scenarios(im, 2);
	im->sh[2] = (Elf64_Shdr){ .sh_name = (uint32_t)strlen(CSAN_SCENARIO_SECTION) + 2,
				  .sh_type = SHT_STRTAB,
				  .sh_offset = OFF_SHSTR,
				  .sh_size = sizeof(shstrtab),
				  .sh_addralign = 1 };
	im->len = IMG_SIZE;
}

void img_write(const struct img *im, char *path, size_t pathlen)
{
	static uint8_t buf[IMG_SIZE];
	const char *dir = getenv("TMPDIR");
	size_t len = im->len < IMG_SIZE ? im->len : IMG_SIZE;
	int fd;

	memset(buf, 0, sizeof(buf));
	memcpy(buf, &im->eh, sizeof(im->eh));
	memcpy(buf + OFF_PHDR, im->ph, sizeof(im->ph));
	memcpy(buf + OFF_TEXT, im->text, sizeof(im->text));
	memcpy(buf + OFF_DATA, im->data, sizeof(im->data));
	memcpy(buf + OFF_NOTE, im->notes, sizeof(im->notes));
	memcpy(buf + OFF_SCEN, im->sc, sizeof(im->sc));
	memcpy(buf + OFF_SHSTR, shstrtab, sizeof(shstrtab));
	memcpy(buf + OFF_SHDR, im->sh, sizeof(im->sh));

	snprintf(path, pathlen, "%s/csan-test-elf-XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(path);
	if (fd < 0 || write(fd, buf, len) != (ssize_t)len) {
		perror("test-elf: cannot write a temporary image");
		exit(99);
	}
	close(fd);
}
