/* boot_common.h: what the PVH boot and the bzImage boot share (image/ only, not an interface). */
#ifndef CSAN_VMM_BOOT_COMMON_H
#define CSAN_VMM_BOOT_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include <linux/kvm.h>

#include "vmm/image/boot.h"

struct vm;

/* Room for the boot GDT: from BOOT_GDT_GPA up to the memory map. */
#define BOOT_GDT_ENTRIES ((BOOT_MEMMAP_GPA - BOOT_GDT_GPA) / 8)

/*
 * The boot vCPU's state at a kernel's entry: its three segments (each
 * put in the GDT at its selector's slot), control registers and EFER,
 * and general registers.  The rest comes from KVM's reset state.
 */
struct boot_entry {
	const struct kvm_segment *code, *data, *tss;
	uint64_t cr0, cr3, cr4, efer;
	struct kvm_regs regs;
};

/*
 * boot_enter - write the GDT that matches @e's segments at BOOT_GDT_GPA
 * of @ram and load @e into the vCPU @vcpu_fd, with an empty IDT.
 * Returns 0, -EINVAL when a selector has no slot in the GDT, or the
 * failing ioctl's negative errno.
 */
int boot_enter(int vcpu_fd, uint8_t *ram, const struct boot_entry *e);

/*
 * boot_acpi - build the ACPI tables for @vm's vCPUs in its RAM and set
 * *@rsdp to the RSDP's address.  Returns 0, or acpi_build's negative
 * errno with a message in @why.
 */
int boot_acpi(struct vm *vm, uint64_t *rsdp, char *why, size_t whylen);

#endif /* CSAN_VMM_BOOT_COMMON_H */
