/* pvh.h: the PVH boot protocol's structures (x86 direct kernel boot). */
#ifndef CSAN_PVH_H
#define CSAN_PVH_H

/*
 * PVH is the boot protocol Xen, QEMU (-kernel with an ELF), Firecracker and
 * cloud-hypervisor use to start a vmlinux directly: the ELF carries a note
 * (name "Xen", type XEN_ELFNOTE_PHYS32_ENTRY) with the physical address of
 * a 32-bit entry point, which is entered in flat 32-bit protected mode with
 * paging off, interrupts off, and EBX holding the physical address of a
 * start-info block.  Layouts follow Xen's public
 * arch-x86/hvm/start_info.h (version 1).
 */
#define PVH_NOTE_NAME "Xen"
#define XEN_ELFNOTE_PHYS32_ENTRY 18
#define PVH_START_MAGIC 0x336ec578u

/* E820 memory types used in the memory map. */
#define PVH_MEMMAP_RAM 1
#define PVH_MEMMAP_RESERVED 2
#define PVH_MEMMAP_ACPI 3

#ifndef __ASSEMBLER__
#include <stdint.h>

struct pvh_start_info {
	uint32_t magic; /* PVH_START_MAGIC */
	uint32_t version; /* 1: rsdp_paddr and the memory map are valid */
	uint32_t flags;
	uint32_t nr_modules;
	uint64_t modlist_paddr;
	uint64_t cmdline_paddr; /* NUL-terminated, 0 if none */
	uint64_t rsdp_paddr; /* 0: scan the BIOS area */
	uint64_t memmap_paddr; /* array of struct pvh_memmap_entry */
	uint32_t memmap_entries;
	uint32_t reserved;
};

struct pvh_memmap_entry {
	uint64_t addr;
	uint64_t size;
	uint32_t type;
	uint32_t reserved;
};

_Static_assert(sizeof(struct pvh_start_info) == 56, "pvh_start_info layout");
_Static_assert(sizeof(struct pvh_memmap_entry) == 24, "pvh_memmap_entry");
#endif /* !__ASSEMBLER__ */

#endif /* CSAN_PVH_H */
