/* boot.h: PVH boot: the start info block and the boot vCPU's entry state. */
#ifndef CSAN_VMM_BOOT_H
#define CSAN_VMM_BOOT_H

#include <stddef.h>
#include <stdint.h>

#include "csan/abi.h"

struct vm;

/* Layout of the boot data area [CSAN_BOOT_DATA_BASE, CSAN_BOOT_DATA_END). */
#define BOOT_START_INFO_GPA CSAN_BOOT_DATA_BASE
#define BOOT_GDT_GPA	    (CSAN_BOOT_DATA_BASE + 0x40)
#define BOOT_MEMMAP_GPA	    (CSAN_BOOT_DATA_BASE + 0x80)
#define BOOT_MEMMAP_MAX	    8
#define BOOT_CMDLINE_GPA    (CSAN_BOOT_DATA_BASE + 0x1000)
#define BOOT_CMDLINE_MAX    (CSAN_BOOT_DATA_END - BOOT_CMDLINE_GPA) /* with the NUL */

/* Selectors of the flat GDT the boot vCPU starts with. */
#define BOOT_SEL_CODE 0x08
#define BOOT_SEL_DATA 0x10
#define BOOT_SEL_TSS  0x18

/*
 * boot_write_start_info - fill the boot data area of guest RAM (@ram,
 * @ram_size bytes): struct pvh_start_info (version 1) with @rsdp_gpa, the
 * E820-style memory map of guest-contract.md and @cmdline (NULL: none).
 * Returns 0, -E2BIG when @cmdline does not fit (message in @why), or
 * -EINVAL when RAM is too small to hold the layout.
 */
int boot_write_start_info(uint8_t *ram, uint64_t ram_size, const char *cmdline, uint64_t rsdp_gpa,
			  char *why, size_t whylen);

/*
 * boot_set_entry_state - put the vCPU @vcpu_fd at PVH entry @entry: flat
 * 32-bit protected mode from a GDT written at BOOT_GDT_GPA of @ram, CR0.PE
 * only, paging and interrupts off, RFLAGS = 2, EBX = @start_info_gpa.
 * Returns 0 or the failing ioctl's negative errno.
 */
int boot_set_entry_state(int vcpu_fd, uint8_t *ram, uint64_t entry, uint64_t start_info_gpa);

/*
 * boot_setup - write the PVH start info with @cmdline into the boot data
 * area, the ACPI tables at 0xe0000, and put the boot vCPU of @vm at
 * @pvh_entry in flat 32-bit protected mode.  Call after the image is
 * loaded.  Returns 0, or -E2BIG (command line too long), -EINVAL (entry
 * outside RAM) or an ioctl's -errno, with a message in @why.
 */
int boot_setup(struct vm *vm, uint64_t pvh_entry, const char *cmdline, char *why, size_t whylen);

#endif /* CSAN_VMM_BOOT_H */
