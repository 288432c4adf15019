/* boot.c: PVH boot: the start info block, the initrd, and the boot vCPU's entry state. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include <linux/kvm.h>

#include "csan/pvh.h"
#include "vmm/dev/acpi.h"
#include "vmm/image/boot.h"
#include "vmm/kvm/vm.h"
#include "vmm/kvm/x86.h"

/* The top of conventional memory, where a PC's EBDA would start. */
#define BOOT_LOW_RAM_TOP 0x9fc00u

_Static_assert(BOOT_GDT_GPA >= BOOT_START_INFO_GPA + sizeof(struct pvh_start_info),
	       "GDT after the start info");
_Static_assert(BOOT_MEMMAP_GPA + BOOT_MEMMAP_MAX * sizeof(struct pvh_memmap_entry) <=
		       BOOT_MODLIST_GPA,
	       "memory map before the module list");
_Static_assert(BOOT_MODLIST_GPA + 32 <= BOOT_CMDLINE_GPA, "module list before the command line");

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

/* The descriptor for @s, so the GDT matches the loaded segment state. */
static uint64_t gdt_entry(const struct kvm_segment *s)
{
	uint32_t limit = s->g ? s->limit >> 12 : s->limit;
	uint32_t lo = (limit & 0xffffu) | (uint32_t)(s->base & 0xffffu) << 16;
	uint32_t hi = (uint32_t)(s->base >> 16) & 0xffu;

	hi |= (uint32_t)s->type << X86_DESC_TYPE_SHIFT;
	hi |= s->s ? X86_DESC_S : 0;
	hi |= (uint32_t)s->dpl << X86_DESC_DPL_SHIFT;
	hi |= s->present ? X86_DESC_P : 0;
	hi |= limit & 0xf0000u;
	hi |= s->avl ? X86_DESC_AVL : 0;
	hi |= s->l ? X86_DESC_L : 0;
	hi |= s->db ? X86_DESC_DB : 0;
	hi |= s->g ? X86_DESC_G : 0;
	hi |= (uint32_t)(s->base >> 24 & 0xffu) << 24;
	return (uint64_t)hi << 32 | lo;
}

unsigned boot_memory_map(struct pvh_memmap_entry *m, uint64_t ram_size)
{
	const struct pvh_memmap_entry map[] = {
		{ 0, BOOT_LOW_RAM_TOP, PVH_MEMMAP_RAM, 0 },
		{ BOOT_LOW_RAM_TOP, CSAN_ACPI_BASE - BOOT_LOW_RAM_TOP, PVH_MEMMAP_RESERVED, 0 },
		{ CSAN_ACPI_BASE, CSAN_ACPI_END - CSAN_ACPI_BASE, PVH_MEMMAP_ACPI, 0 },
		{ CSAN_KERNEL_MIN, ram_size - CSAN_KERNEL_MIN, PVH_MEMMAP_RAM, 0 },
	};

	_Static_assert(sizeof(map) / sizeof(map[0]) <= BOOT_MEMMAP_MAX, "memory map size");
	memcpy(m, map, sizeof(map));
	return sizeof(map) / sizeof(map[0]);
}

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
	const uint64_t gdt[] = {
		0,
		gdt_entry(&boot_code_seg),
		gdt_entry(&boot_data_seg),
		gdt_entry(&boot_tss_seg),
	};
	struct kvm_regs regs = {
		.rflags = X86_RFLAGS_FIXED, /* IF clear: interrupts off */
		.rip = entry,
		.rbx = start_info_gpa,
	};
	struct kvm_sregs sregs;

	_Static_assert(BOOT_SEL_TSS / 8 < sizeof(gdt) / sizeof(gdt[0]), "selectors in the GDT");
	memcpy(ram + BOOT_GDT_GPA, gdt, sizeof(gdt));
	/* Start from KVM's reset state so the APIC base and the LDT stay valid. */
	if (ioctl(vcpu_fd, KVM_GET_SREGS, &sregs) < 0)
		return -errno;
	sregs.cs = boot_code_seg;
	sregs.ds = sregs.es = sregs.fs = sregs.gs = sregs.ss = boot_data_seg;
	sregs.tr = boot_tss_seg;
	sregs.gdt.base = BOOT_GDT_GPA;
	sregs.gdt.limit = sizeof(gdt) - 1;
	/* An empty IDT: an exception before the guest's own lidt is a clean triple fault. */
	sregs.idt.base = 0;
	sregs.idt.limit = 0;
	sregs.cr0 = X86_CR0_PE;
	sregs.cr2 = sregs.cr3 = sregs.cr4 = 0;
	sregs.efer = 0;
	if (ioctl(vcpu_fd, KVM_SET_SREGS, &sregs) < 0)
		return -errno;
	if (ioctl(vcpu_fd, KVM_SET_REGS, &regs) < 0)
		return -errno;
	return 0;
}

#define BOOT_PAGE 4096u

int boot_place_initrd(struct vm *vm, const struct boot_initrd *initrd, uint64_t lowest,
		      uint64_t limit, uint64_t *gpa, char *why, size_t whylen)
{
	uint64_t end = limit < vm->ram_size ? limit : vm->ram_size;
	uint64_t at;

	/* Below the 32-bit fields' reach too: both protocols give a u32 address. */
	if (end > CSAN_RAM_LIMIT)
		end = CSAN_RAM_LIMIT;
	if (initrd->len > end || (at = (end - initrd->len) & ~(uint64_t)(BOOT_PAGE - 1)) < lowest) {
		snprintf(why, whylen,
			 "the initramfs (%zu bytes) does not fit in guest RAM above the kernel "
			 "(%#" PRIx64 " to %#" PRIx64 "); give more --memory",
			 initrd->len, lowest, end);
		return -ENOSPC;
	}
	memcpy(vm->ram + at, initrd->data, initrd->len);
	*gpa = at;
	return 0;
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
	r = acpi_build(vm->ram, vm->ram_size, vm->ncpus, vm->pc_platform, &rsdp);
	if (r) {
		snprintf(why, whylen,
			 "cannot place ACPI tables for %u vCPUs in %#" PRIx64 " bytes of RAM",
			 vm->ncpus, vm->ram_size);
		return r;
	}
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
