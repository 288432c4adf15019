/* elf_guest.h: open, validate and load a guest kernel ELF image. */
#ifndef CSAN_VMM_ELF_GUEST_H
#define CSAN_VMM_ELF_GUEST_H

#include <stddef.h>
#include <stdint.h>

#include <libelf.h>

#include "csan/abi.h"

/* One PT_LOAD program header with memory to fill (p_memsz > 0). */
struct elf_segment {
	uint64_t paddr;		/* where it is loaded, guest-physical */
	uint64_t filesz, memsz; /* bytes from the file; the rest is zeroed */
	uint64_t offset;	/* of the file bytes in the image */
	uint32_t flags;		/* PF_X, PF_W, PF_R */
	uint64_t vaddr;		/* where the guest sees it; = paddr for csan guests */
	unsigned phdr;		/* program header index, for messages */
};

/* One entry of the image's CSAN_SCENARIO_SECTION, strings resolved. */
struct elf_scenario {
	char name[CSAN_SCENARIO_NAME_MAX + 1]; /* [a-z0-9-]+, unique */
	char summary[128];		       /* truncated to fit; unprintable bytes become '?' */
	uint64_t run;			       /* guest virtual address of int run(void) */
	uint32_t flags;			       /* CSAN_SCENARIO_* */
};

struct elf_guest {
	char *path;
	int fd;
	uint8_t *image; /* the whole file, read once (never mapped: no SIGBUS) */
	size_t image_size;
	Elf *elf; /* over image */
	uint64_t pvh_entry;	  /* guest-physical 32-bit entry point */
	uint32_t abi_version;	  /* CSAN_ABI_VERSION, or 0: no csan ABI note (Linux) */
	struct elf_segment *segs; /* sorted by paddr, none overlapping */
	size_t nsegs;
	uint64_t image_start, image_end; /* lowest paddr, highest paddr+memsz */
	struct elf_scenario *scenarios;	 /* in table order */
	size_t nscenarios;
	/*
	 * A bzImage booted in this ELF's place (kernel_image.c): then @path
	 * is the bzImage and everything above describes its vmlinux, or
	 * nothing when none was found.  NULL: this ELF boots, by PVH.
	 */
	struct bzimage *bz;
	/* The ELF with the kernel's symbols and DWARF; NULL: none, reports stay unsymbolized. */
	char *sym_path;
};

/*
 * elf_guest_open - open @path and check that it is a guest csan-vmm can boot
 * @path: the guest image (copied)
 * @g: filled in on success; on failure left closed (elf_guest_close on it is
 *     a no-op), so the caller has nothing to undo
 * @why, @whylen: on failure, a one-line message starting with @path that
 *     names the offending field and says what to do
 *
 * Returns 0, or -ENOENT/-EACCES/-EISDIR/... when the file cannot be opened,
 * -EINVAL for something that is not a regular file, -ENOEXEC when it is not
 * a valid x86-64 PVH ELF executable (or its scenario table is malformed),
 * -EPROTO when it carries another csan-vmm ABI version, -ENOMEM when out
 * of memory.  An image without the ABI note opens with abi_version 0: a
 * plain PVH kernel such as Linux (profile.c).
 */
int elf_guest_open(const char *path, struct elf_guest *g, char *why, size_t whylen);

/*
 * elf_guest_open_vmlinux - as elf_guest_open, for a vmlinux read for its
 * symbols and segments while a bzImage of the same build boots: it need
 * not have a PVH entry note.
 */
int elf_guest_open_vmlinux(const char *path, struct elf_guest *g, char *why, size_t whylen);

/*
 * elf_guest_check_fits - check that every segment of @g lies in guest RAM
 * @g: an open image
 * @ram_size: bytes of guest RAM, starting at guest-physical 0
 * @why, @whylen: on failure, names the segment and suggests a larger -m
 *
 * Returns 0, or -EFBIG when a segment ends past @ram_size.
 */
int elf_guest_check_fits(const struct elf_guest *g, uint64_t ram_size, char *why, size_t whylen);

/*
 * elf_guest_load - copy the PT_LOAD segments of @g into guest RAM
 * @g: an open image
 * @ram: host address of guest-physical 0
 * @ram_size: bytes at @ram
 * @why, @whylen: on failure, what did not fit
 *
 * Copies each segment's file bytes to its paddr and zeroes the rest of its
 * p_memsz.  The bounds are checked again here, so a caller that skipped
 * elf_guest_check_fits cannot write outside @ram.  Returns 0, -EINVAL for a
 * NULL @ram, or -EFBIG when a segment does not fit (nothing is written then).
 */
int elf_guest_load(const struct elf_guest *g, uint8_t *ram, uint64_t ram_size, char *why,
		   size_t whylen);

/*
 * elf_guest_find_scenario - look up a scenario by exact name
 * Returns the entry of @g's table named @name, or NULL when there is none.
 */
const struct elf_scenario *elf_guest_find_scenario(const struct elf_guest *g, const char *name);

/*
 * elf_guest_close - release @g
 * Safe to call twice, and on a @g whose elf_guest_open failed (then it does
 * nothing).  Not for a @g that elf_guest_open never saw: fd 0 would be closed.
 */
void elf_guest_close(struct elf_guest *g);

#endif /* CSAN_VMM_ELF_GUEST_H */
