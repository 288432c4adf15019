/* boot.c: PVH boot: the start info block, the initrd, and the boot vCPU's entry state. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <linux/kvm.h>

#include "csan/pvh.h"
#include "vmm/image/boot.h"
#include "vmm/image/boot_common.h"
#include "vmm/kvm/vm.h"
#include "vmm/kvm/x86.h"

_Static_assert(BOOT_GDT_GPA >= BOOT_START_INFO_GPA + sizeof(struct pvh_start_info),
	       "GDT after the start info");
_Static_assert(BOOT_MEMMAP_GPA + BOOT_MEMMAP_MAX * sizeof(struct pvh_memmap_entry) <=
		       BOOT_MODLIST_GPA,
	       "memory map before the module list");
_Static_assert(BOOT_MODLIST_GPA + 32 <= BOOT_CMDLINE_GPA, "module list before the command line");
_Static_assert(BOOT_SEL_TSS / 8 < BOOT_GDT_ENTRIES, "selectors in the GDT");

/* The PVH entry state (Xen's docs/misc/pvh.pandoc): flat 4 GiB ring-0 segments. */
#define BOOT_FLAT_SEGMENT(sel, seg_type)                                                           \
	{                                                                                          \
		.base = 0, .limit = 0xffffffff, .selector = (sel), .type = (seg_type),             \
		.present = 1, .dpl = 0, .db = 1, .s = 1, .l = 0, .g = 1,                           \
	}
static const struct kvm_segment boot_code_seg =
	BOOT_FLAT_SEGMENT(BOOT_SEL_CODE, X86_SEG_TYPE_CODE_RX_ACCESSED);
static const struct kvm_segment boot_data_seg =
	BOOT_FLAT_SEGMENT(BOOT_SEL_DATA, X86_SEG_TYPE_DATA_RW_ACCESSED);
/* VMX refuses to enter protected mode without a usable, busy TSS. */
static const struct kvm_segment boot_tss_seg = {
	.base = 0,
	.limit = X86_TSS32_LIMIT,
	.selector = BOOT_SEL_TSS,
	.type = X86_SEG_TYPE_TSS32_BUSY,
	.present = 1,
	.dpl = 0,
	.db = 0,
	.s = 0,
	.l = 0,
	.g = 0,
};

int boot_write_start_info(uint8_t *ram, uint64_t ram_size, const char *cmdline, uint64_t rsdp_gpa,
			  char *why, size_t whylen)
{
	struct pvh_start_info si = {
		.magic = PVH_START_MAGIC,
		.version = 1,
		.rsdp_paddr = rsdp_gpa,
		.memmap_paddr = BOOT_MEMMAP_GPA,
	};
	size_t len = cmdline ? strlen(cmdline) : 0;

	if (ram_size <= CSAN_KERNEL_MIN) {
		snprintf(why, whylen, "guest RAM (%" PRIu64 " bytes) ends below 1 MiB", ram_size);
		return -EINVAL;
	}
	if (len >= BOOT_CMDLINE_MAX) {
		snprintf(why, whylen,
			 "the guest command line is %zu bytes; at most %u fit: shorten --append",
			 len, BOOT_CMDLINE_MAX - 1);
		return -E2BIG;
	}
	memset(ram + CSAN_BOOT_DATA_BASE, 0, CSAN_BOOT_DATA_END - CSAN_BOOT_DATA_BASE);
	if (cmdline) {
		memcpy(ram + BOOT_CMDLINE_GPA, cmdline, len + 1);
		si.cmdline_paddr = BOOT_CMDLINE_GPA;
	}
	si.memmap_entries =
		boot_memory_map((struct pvh_memmap_entry *)(ram + BOOT_MEMMAP_GPA), ram_size);
	memcpy(ram + BOOT_START_INFO_GPA, &si, sizeof(si));
	return 0;
}

int boot_set_entry_state(int vcpu_fd, uint8_t *ram, uint64_t entry, uint64_t start_info_gpa)
{
	const struct boot_entry e = {
		.code = &boot_code_seg,
		.data = &boot_data_seg,
		.tss = &boot_tss_seg,
		.cr0 = X86_CR0_PE, /* no paging, and CR3, CR4, EFER 0 */
		.regs = {
			.rflags = X86_RFLAGS_FIXED, /* IF clear: interrupts off */
			.rip = entry,
			.rbx = start_info_gpa,
		},
	};

	return boot_enter(vcpu_fd, ram, &e);
}

/* PVH's module list (Xen's hvm_modlist_entry): the initrd is module 0. */
struct pvh_module {
	uint64_t paddr;
	uint64_t size;
	uint64_t cmdline_paddr;
	uint64_t reserved;
};

int boot_setup(struct vm *vm, uint64_t pvh_entry, uint64_t image_end, const char *cmdline,
	       const struct boot_initrd *initrd, char *why, size_t whylen)
{
	struct pvh_start_info *si;
	uint64_t rsdp, at;
	int r;

	if (pvh_entry > UINT32_MAX || !vm_gpa_to_hva(vm, pvh_entry, 1)) {
		snprintf(why, whylen,
			 "the PVH entry point %#" PRIx64 " is not in guest RAM below 4 GiB "
			 "(RAM is %#" PRIx64 " bytes)",
			 pvh_entry, vm->ram_size);
		return -EINVAL;
	}
	r = boot_acpi(vm, &rsdp, why, whylen);
	if (r)
		return r;
	r = boot_write_start_info(vm->ram, vm->ram_size, cmdline, rsdp, why, whylen);
	if (r)
		return r;
	if (initrd && initrd->len) {
		struct pvh_module mod = { 0 };

		r = boot_place_initrd(vm, initrd, image_end, CSAN_RAM_LIMIT, &at, why, whylen);
		if (r)
			return r;
		mod.paddr = at;
		mod.size = initrd->len;
		memcpy(vm->ram + BOOT_MODLIST_GPA, &mod, sizeof(mod));
		si = (struct pvh_start_info *)(vm->ram + BOOT_START_INFO_GPA);
		si->nr_modules = 1;
		si->modlist_paddr = BOOT_MODLIST_GPA;
	}
	r = boot_set_entry_state(vm->vcpus[0]->fd, vm->ram, pvh_entry, BOOT_START_INFO_GPA);
	if (r)
		snprintf(why, whylen, "cannot set the boot vCPU's registers: %s", strerror(-r));
	return r;
}
