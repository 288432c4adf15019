/* boot.h: booting a kernel: PVH for an ELF, the x86 boot protocol for a bzImage. */
#ifndef CSAN_VMM_BOOT_H
#define CSAN_VMM_BOOT_H

#include <stddef.h>
#include <stdint.h>

#include "csan/abi.h"

struct bzimage;
struct vm;

/* An initial RAM disk for the kernel (a cpio archive, perhaps several); len 0: none. */
struct boot_initrd {
	const uint8_t *data;
	size_t len;
};

/*
 * A bzImage boots by the 64-bit boot protocol: its boot_params and
 * identity page tables follow the boot data area, in the low 64 KiB that
 * Linux keeps for itself (CONFIG_X86_RESERVE_LOW), away from where its
 * decompressor puts its trampoline (the top of conventional memory).
 */
#define BOOT_PARAMS_GPA	    CSAN_BOOT_DATA_END
#define BOOT_PML4_GPA	    (BOOT_PARAMS_GPA + 0x1000)
#define BOOT_PDPT_GPA	    (BOOT_PML4_GPA + 0x1000)
#define BOOT_PD_GPA	    (BOOT_PDPT_GPA + 0x1000) /* 4 tables: the low 4 GiB in 2 MiB pages */
#define BOOT_PD_TABLES	    4
#define BOOT_BZ_LOAD_GPA    CSAN_KERNEL_MIN /* where the protected-mode kernel is put */
#define BOOT_SEL_CODE64	    0x10 /* __BOOT_CS and __BOOT_DS, as the protocol wants */
#define BOOT_SEL_DATA64	    0x18
#define BOOT_SEL_TSS64	    0x20

/* Layout of the boot data area [CSAN_BOOT_DATA_BASE, CSAN_BOOT_DATA_END). */
#define BOOT_START_INFO_GPA CSAN_BOOT_DATA_BASE
#define BOOT_GDT_GPA	    (CSAN_BOOT_DATA_BASE + 0x40)
#define BOOT_MEMMAP_GPA	    (CSAN_BOOT_DATA_BASE + 0x80)
#define BOOT_MEMMAP_MAX	    8
#define BOOT_MODLIST_GPA    (CSAN_BOOT_DATA_BASE + 0x800) /* PVH: the initrd's entry */
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

struct pvh_memmap_entry;

/*
 * boot_memory_map - the guest's memory map for @ram_size bytes of RAM
 * (docs/guest-contract.md) into @m (BOOT_MEMMAP_MAX entries), with E820's
 * type numbers; returns how many entries.
 */
unsigned boot_memory_map(struct pvh_memmap_entry *m, uint64_t ram_size);

/*
 * boot_place_initrd - copy @initrd into guest RAM as high as it goes,
 * page-aligned, ending at or below @limit (and RAM's end), starting at or
 * above @lowest (where the kernel's own memory ends).  Sets *@gpa.
 * Returns 0, or -ENOSPC with a message naming --memory in @why.
 */
int boot_place_initrd(struct vm *vm, const struct boot_initrd *initrd, uint64_t lowest,
		      uint64_t limit, uint64_t *gpa, char *why, size_t whylen);

/*
 * boot_set_entry_state - put the vCPU @vcpu_fd at PVH entry @entry: flat
 * 32-bit protected mode from a GDT written at BOOT_GDT_GPA of @ram, CR0.PE
 * only, paging and interrupts off, RFLAGS = 2, EBX = @start_info_gpa.
 * Returns 0 or the failing ioctl's negative errno.
 */
int boot_set_entry_state(int vcpu_fd, uint8_t *ram, uint64_t entry, uint64_t start_info_gpa);

/*
 * boot_setup - write the PVH start info with @cmdline (and @initrd as its
 * one module, placed above @image_end; NULL or empty: none) into the boot
 * data area, the ACPI tables at 0xe0000, and put the boot vCPU of @vm at
 * @pvh_entry in flat 32-bit protected mode.  Call after the image is
 * loaded.  Returns 0, or -E2BIG (command line too long), -EINVAL (entry
 * outside RAM), -ENOSPC (no room for the initrd) or an ioctl's -errno,
 * with a message in @why.
 */
int boot_setup(struct vm *vm, uint64_t pvh_entry, uint64_t image_end, const char *cmdline,
	       const struct boot_initrd *initrd, char *why, size_t whylen);

/*
 * boot_bzimage_check_fits - whether @ram_size bytes hold @bz while it
 * boots (loaded at 1 MiB, run from its preferred address) and an initrd
 * of @initrd_len bytes.  Returns 0, or -EFBIG naming --memory in @why.
 */
int boot_bzimage_check_fits(const struct bzimage *bz, uint64_t ram_size, size_t initrd_len,
			    char *why, size_t whylen);

/*
 * boot_bzimage - load @bz's protected-mode kernel at 1 MiB, write its
 * boot_params (the setup header from the file, the E820 map, @cmdline,
 * @initrd, the RSDP), the ACPI tables and identity page tables, and put
 * the boot vCPU at the 64-bit entry: long mode, the protocol's segments,
 * RSI = boot_params.  Returns 0 or a negative errno with a message in @why.
 */
int boot_bzimage(struct vm *vm, const struct bzimage *bz, const char *cmdline,
		 const struct boot_initrd *initrd, char *why, size_t whylen);

#endif /* CSAN_VMM_BOOT_H */
