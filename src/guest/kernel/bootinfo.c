/* bootinfo.c: copy what the guest needs out of the PVH start info. */
#include <csan/pvh.h>

#include "bootinfo.h"
#include "kstring.h"

struct bootinfo bootinfo;

void bootinfo_copy(uint64_t start_info_paddr)
{
	const struct pvh_start_info *si = (const void *)(uintptr_t)start_info_paddr;
	const struct pvh_memmap_entry *map;
	unsigned int i;

	bootinfo.pvh_magic = si->magic;
	if (si->magic != PVH_START_MAGIC)
		return;
	bootinfo.pvh_ok = true;

	if (si->cmdline_paddr) {
		const char *line = (const char *)(uintptr_t)si->cmdline_paddr;

		bootinfo.cmdline_cut = strlcpy(bootinfo.cmdline, line, sizeof(bootinfo.cmdline)) >=
				       sizeof(bootinfo.cmdline);
	}
	/* Version 0 start info has no RSDP or memory map fields. */
	if (si->version < 1)
		return;
	bootinfo.rsdp_paddr = si->rsdp_paddr;
	map = (const struct pvh_memmap_entry *)(uintptr_t)si->memmap_paddr;
	for (i = 0; map && i < si->memmap_entries; i++) {
		if (bootinfo.memmap_entries < BOOT_MEMMAP_MAX)
			bootinfo.memmap[bootinfo.memmap_entries++] = map[i];
		else
			bootinfo.memmap_dropped++;
	}
}

uint64_t bootinfo_ram_bytes(void)
{
	uint64_t total = 0;
	unsigned int i;

	for (i = 0; i < bootinfo.memmap_entries; i++)
		if (bootinfo.memmap[i].type == PVH_MEMMAP_RAM)
			total += bootinfo.memmap[i].size;
	return total;
}
