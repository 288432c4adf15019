/* bootinfo.h: what the guest keeps from the PVH start info. */
#ifndef GUEST_BOOTINFO_H
#define GUEST_BOOTINFO_H

#include <csan/pvh.h>

#include "compiler.h"

#define BOOT_CMDLINE_MAX 1024
#define BOOT_MEMMAP_MAX	 32

struct bootinfo {
	bool pvh_ok;	    /* start info had the PVH magic */
	uint32_t pvh_magic; /* what was found, for the message */
	bool cmdline_cut;   /* longer than BOOT_CMDLINE_MAX - 1 */
	char cmdline[BOOT_CMDLINE_MAX];
	uint64_t rsdp_paddr;
	unsigned int memmap_entries;
	unsigned int memmap_dropped;
	struct pvh_memmap_entry memmap[BOOT_MEMMAP_MAX];
};

extern struct bootinfo bootinfo;

/*
 * bootinfo_copy - copy the command line and memory map out of the start
 * info at @start_info_paddr, before anything reuses low memory.  Prints
 * nothing (the console is not up yet); see bootinfo.pvh_ok.
 */
void bootinfo_copy(uint64_t start_info_paddr);

/* bootinfo_ram_bytes - total RAM in the memory map. */
uint64_t bootinfo_ram_bytes(void);

#endif /* GUEST_BOOTINFO_H */
