/* elf_private.h: state shared by elf_guest.c and elf_scenarios.c while an image is checked. */
#ifndef CSAN_VMM_ELF_PRIVATE_H
#define CSAN_VMM_ELF_PRIVATE_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/image/elf_guest.h"

/*
 * Headers, note descriptors and the scenario table are read in host byte
 * order after checking EI_DATA is little-endian; configure only accepts
 * x86-64 hosts, so that holds.
 */
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the ELF loader reads little-endian ELF fields in host byte order"
#endif

/* A rejection lists this many ABI note versions; the rest are counted. */
#define ELF_ABI_NOTES_SHOWN 8

/* State while elf_guest_open checks an image. */
struct elf_check {
	struct elf_guest *g;
	char *why;
	size_t whylen;
	uint64_t size;	    /* of the file */
	const uint8_t *raw; /* the whole file (libelf's mapping) */
	Elf64_Ehdr eh;
	uint64_t shnum; /* section headers, with extended numbering resolved */
	bool have_pvh;
	bool symbols_only; /* a vmlinux beside a bzImage: no PVH entry needed */
	uint32_t abi[ELF_ABI_NOTES_SHOWN];
	size_t nabi; /* ABI notes seen, possibly more than ELF_ABI_NOTES_SHOWN */
	bool abi_mismatch;
};

/*
 * elf_say - write "@path: message" to @why (if @why and @whylen allow)
 * Returns @err, so that a check can end with return elf_say(...).
 */
int elf_say(char *why, size_t whylen, const char *path, int err, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

#define REJECT(c, err, ...) elf_say((c)->why, (c)->whylen, (c)->g->path, err, __VA_ARGS__)

/* [off, off + len) lies inside [0, limit): the one overflow-safe range test. */
static inline bool elf_in_bounds(uint64_t off, uint64_t len, uint64_t limit)
{
	uint64_t end;

	return !__builtin_add_overflow(off, len, &end) && end <= limit;
}

/*
 * elf_in_code - the file bytes of an executable (PF_X) PT_LOAD of @g hold
 * @addr, a physical address or, with @virt, a virtual one.
 */
bool elf_in_code(const struct elf_guest *g, uint64_t addr, bool virt);

/*
 * elf_scenarios_read - read and check the optional CSAN_SCENARIO_SECTION
 * into c->g->scenarios.  Needs c->g->segs.  Returns 0 (also when there is
 * no such section), -ENOEXEC for a malformed table, -ENOMEM.
 */
int elf_scenarios_read(struct elf_check *c);

#endif /* CSAN_VMM_ELF_PRIVATE_H */
