/* boot_common.c: what both boots do alike: memory map, initrd, ACPI, GDT and entry registers. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include <linux/kvm.h>

#include "csan/pvh.h"
#include "vmm/dev/acpi.h"
#include "vmm/image/boot.h"
#include "vmm/image/boot_common.h"
#include "vmm/kvm/vm.h"
#include "vmm/kvm/x86.h"

/* The top of conventional memory, where a PC's EBDA would start. */
#define BOOT_LOW_RAM_TOP 0x9fc00u
#define BOOT_PAGE	 4096u

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

int boot_acpi(struct vm *vm, uint64_t *rsdp, char *why, size_t whylen)
{
	int r = acpi_build(vm->ram, vm->ram_size, vm->ncpus, vm->pc_platform, rsdp);

	if (r)
		snprintf(why, whylen,
			 "cannot place ACPI tables for %u vCPUs in %#" PRIx64 " bytes of RAM",
			 vm->ncpus, vm->ram_size);
	return r;
}

/* The descriptor for @s (SDM Vol. 3A, 3.4.5), so the GDT matches the loaded segment state. */
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

int boot_enter(int vcpu_fd, uint8_t *ram, const struct boot_entry *e)
{
	const struct kvm_segment *segs[] = { e->code, e->data, e->tss };
	uint64_t gdt[BOOT_GDT_ENTRIES] = { 0 };
	struct kvm_sregs sregs;
	unsigned i, slot, used = 1; /* slot 0 is the null descriptor */

	/* Each segment at its selector's slot: the GDT ends at the highest one. */
	for (i = 0; i < sizeof(segs) / sizeof(segs[0]); i++) {
		slot = segs[i]->selector >> 3;
		if (slot == 0 || slot >= BOOT_GDT_ENTRIES)
			return -EINVAL;
		gdt[slot] = gdt_entry(segs[i]);
		if (slot + 1 > used)
			used = slot + 1;
	}
	memcpy(ram + BOOT_GDT_GPA, gdt, used * sizeof(gdt[0]));
	/* Start from KVM's reset state so the APIC base and the LDT stay valid. */
	if (ioctl(vcpu_fd, KVM_GET_SREGS, &sregs) < 0)
		return -errno;
	sregs.cs = *e->code;
	sregs.ds = sregs.es = sregs.fs = sregs.gs = sregs.ss = *e->data;
	sregs.tr = *e->tss;
	sregs.gdt.base = BOOT_GDT_GPA;
	sregs.gdt.limit = (uint16_t)(used * sizeof(gdt[0]) - 1);
	/* An empty IDT: an exception before the kernel's own lidt is a clean triple fault. */
	sregs.idt.base = 0;
	sregs.idt.limit = 0;
	sregs.cr0 = e->cr0;
	sregs.cr2 = 0;
	sregs.cr3 = e->cr3;
	sregs.cr4 = e->cr4;
	sregs.efer = e->efer;
	if (ioctl(vcpu_fd, KVM_SET_SREGS, &sregs) < 0)
		return -errno;
	if (ioctl(vcpu_fd, KVM_SET_REGS, &e->regs) < 0)
		return -errno;
	return 0;
}
