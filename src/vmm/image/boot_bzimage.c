/* boot_bzimage.c: booting a bzImage by the x86 boot protocol's 64-bit entry. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <linux/kvm.h>

#include "csan/pvh.h"
#include "vmm/image/boot.h"
#include "vmm/image/boot_common.h"
#include "vmm/image/bzimage.h"
#include "vmm/kvm/vm.h"
#include "vmm/kvm/x86.h"

/* Page-table entry bits (SDM Vol. 3A, 4.5). */
#define PTE_PRESENT (1ull << 0)
#define PTE_WRITE   (1ull << 1)
#define PTE_LARGE   (1ull << 7) /* a 2 MiB page in a page directory */
#define PAGE_2M	    (2ull << 20)
#define PD_ENTRIES  512u

_Static_assert(BOOT_PD_GPA + BOOT_PD_TABLES * 0x1000 <= 0x10000,
	       "boot_params and page tables in the low 64 KiB Linux reserves");
_Static_assert(BOOT_SEL_TSS64 / 8 < BOOT_GDT_ENTRIES, "the 64-bit GDT before the memory map");

/*
 * The 64-bit entry's segments: "__BOOT_CS and __BOOT_DS, 4G flat", CS a
 * long-mode code segment.  The TSS is there because VMX refuses to enter a
 * guest without a usable one.
 */
static const struct kvm_segment code64 = {
	.limit = 0xffffffff, .selector = BOOT_SEL_CODE64, .type = X86_SEG_TYPE_CODE_RX_ACCESSED,
	.present = 1, .s = 1, .l = 1, .g = 1,
};
static const struct kvm_segment data64 = {
	.limit = 0xffffffff, .selector = BOOT_SEL_DATA64, .type = X86_SEG_TYPE_DATA_RW_ACCESSED,
	.present = 1, .s = 1, .db = 1, .g = 1,
};
static const struct kvm_segment tss64 = {
	.limit = X86_TSS32_LIMIT, .selector = BOOT_SEL_TSS64, .type = X86_SEG_TYPE_TSS32_BUSY,
	.present = 1,
};

/* Where the kernel's memory ends while it boots: the initrd goes above. */
static uint64_t kernel_end(const struct bzimage *bz)
{
	uint64_t loaded = BOOT_BZ_LOAD_GPA + bz->info.kernel_size;
	uint64_t runs = bz->info.pref_address + bz->info.init_size;

	return loaded > runs ? loaded : runs;
}

int boot_bzimage_check_fits(const struct bzimage *bz, uint64_t ram_size, size_t initrd_len,
			    char *why, size_t whylen)
{
	uint64_t need = kernel_end(bz) + initrd_len;

	if (need <= ram_size)
		return 0;
	snprintf(why, whylen,
		 "%s needs %" PRIu64 " MiB of guest RAM while it boots (it runs from %#" PRIx64
		 " and takes %" PRIu64 " MiB there)%s; give --memory=%" PRIu64 "M or more",
		 bz->path, (need + (1u << 20) - 1) >> 20, bz->info.pref_address,
		 bz->info.init_size >> 20, initrd_len ? ", with the initramfs" : "",
		 ((need + (1u << 20) - 1) >> 20) + 64);
	return -EFBIG;
}

/* Identity page tables for the low 4 GiB: what the 64-bit entry must see mapped. */
static void write_page_tables(uint8_t *ram)
{
	uint64_t *pml4 = (uint64_t *)(ram + BOOT_PML4_GPA);
	uint64_t *pdpt = (uint64_t *)(ram + BOOT_PDPT_GPA);
	unsigned i, j;

	memset(pml4, 0, 0x1000);
	memset(pdpt, 0, 0x1000);
	pml4[0] = BOOT_PDPT_GPA | PTE_PRESENT | PTE_WRITE;
	for (i = 0; i < BOOT_PD_TABLES; i++) {
		uint64_t *pd = (uint64_t *)(ram + BOOT_PD_GPA + i * 0x1000ull);

		pdpt[i] = (BOOT_PD_GPA + i * 0x1000ull) | PTE_PRESENT | PTE_WRITE;
		for (j = 0; j < PD_ENTRIES; j++)
			pd[j] = ((uint64_t)i * PD_ENTRIES + j) * PAGE_2M | PTE_PRESENT |
				PTE_WRITE | PTE_LARGE;
	}
}

static void put(uint8_t *p, size_t off, uint64_t v, unsigned bytes)
{
	memcpy(p + off, &v, bytes);
}

/* boot_params: the file's setup header, then what the loader fills in. */
static int write_boot_params(struct vm *vm, const struct bzimage *bz, const char *cmdline,
			     const struct boot_initrd *initrd, uint64_t rsdp, char *why,
			     size_t whylen)
{
	uint8_t *bp = vm->ram + BOOT_PARAMS_GPA;
	struct pvh_memmap_entry map[BOOT_MEMMAP_MAX];
	size_t len = cmdline ? strlen(cmdline) : 0;
	unsigned n, i;
	uint64_t at;
	int r;

	if (len > bz->info.cmdline_size || len >= BOOT_CMDLINE_MAX) {
		snprintf(why, whylen,
			 "the guest command line is %zu bytes; %s takes at most %u: shorten --append",
			 len, bz->path,
			 bz->info.cmdline_size < BOOT_CMDLINE_MAX - 1 ? bz->info.cmdline_size
								    : BOOT_CMDLINE_MAX - 1);
		return -E2BIG;
	}
	memset(bp, 0, BZ_PARAMS_SIZE);
	memcpy(bp + BZ_HDR_OFFSET, bz->data + BZ_HDR_OFFSET, bz->info.header_end - BZ_HDR_OFFSET);
	bp[BZ_TYPE_OF_LOADER] = 0xff;
	memset(vm->ram + BOOT_CMDLINE_GPA, 0, len + 1);
	memcpy(vm->ram + BOOT_CMDLINE_GPA, cmdline ? cmdline : "", len);
	put(bp, BZ_CMD_LINE_PTR, BOOT_CMDLINE_GPA, 4);
	put(bp, BZ_PARAMS_ACPI_RSDP, rsdp, 8);
	n = boot_memory_map(map, vm->ram_size);
	for (i = 0; i < n; i++) {
		size_t e = BZ_PARAMS_E820_TABLE + i * BZ_E820_ENTRY_SIZE;

		put(bp, e, map[i].addr, 8);
		put(bp, e + 8, map[i].size, 8);
		put(bp, e + 16, map[i].type, 4);
	}
	bp[BZ_PARAMS_E820_ENTRIES] = (uint8_t)n;
	if (initrd && initrd->len) {
		r = boot_place_initrd(vm, initrd, kernel_end(bz),
				      (uint64_t)bz->info.initrd_addr_max + 1, &at, why, whylen);
		if (r)
			return r;
		put(bp, BZ_RAMDISK_IMAGE, at, 4);
		put(bp, BZ_RAMDISK_SIZE, initrd->len, 4);
	}
	return 0;
}

static int set_entry_state(int vcpu_fd, uint8_t *ram)
{
	const struct boot_entry e = {
		.code = &code64,
		.data = &data64,
		.tss = &tss64,
		.cr0 = X86_CR0_PE | X86_CR0_ET | X86_CR0_PG,
		.cr3 = BOOT_PML4_GPA,
		.cr4 = X86_CR4_PAE,
		.efer = X86_EFER_LME | X86_EFER_LMA,
		.regs = {
			.rflags = X86_RFLAGS_FIXED, /* IF clear */
			.rip = BOOT_BZ_LOAD_GPA + BZ_ENTRY64_OFFSET,
			.rsi = BOOT_PARAMS_GPA,
		},
	};

	return boot_enter(vcpu_fd, ram, &e);
}

int boot_bzimage(struct vm *vm, const struct bzimage *bz, const char *cmdline,
		 const struct boot_initrd *initrd, char *why, size_t whylen)
{
	uint64_t rsdp;
	int r;

	r = boot_bzimage_check_fits(bz, vm->ram_size, initrd ? initrd->len : 0, why, whylen);
	if (r)
		return r;
	memcpy(vm->ram + BOOT_BZ_LOAD_GPA, bz->data + bz->info.kernel_offset, bz->info.kernel_size);
	r = boot_acpi(vm, &rsdp, why, whylen);
	if (r)
		return r;
	memset(vm->ram + CSAN_BOOT_DATA_BASE, 0, CSAN_BOOT_DATA_END - CSAN_BOOT_DATA_BASE);
	r = write_boot_params(vm, bz, cmdline, initrd, rsdp, why, whylen);
	if (r)
		return r;
	write_page_tables(vm->ram);
	r = set_entry_state(vm->vcpus[0]->fd, vm->ram);
	if (r)
		snprintf(why, whylen, "cannot set the boot vCPU's registers: %s", strerror(-r));
	return r;
}
