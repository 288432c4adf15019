/* acpi.h: the guest's ACPI tables: RSDP, XSDT and a MADT listing the CPUs. */
#ifndef CSAN_VMM_ACPI_H
#define CSAN_VMM_ACPI_H

#include <stddef.h>
#include <stdint.h>

/*
 * acpi_build - write RSDP (revision 2), XSDT and MADT into guest RAM
 * (@ram, @ram_size bytes) at CSAN_ACPI_BASE: one enabled local APIC per
 * vCPU with APIC ID = index, and an I/O APIC with ID @ncpus at
 * CSAN_IOAPIC_BASE, GSI base 0.  Stores the RSDP's address in @rsdp_gpa.
 * Returns 0, or -EINVAL when RAM does not reach the ACPI area or @ncpus
 * is 0 or above CSAN_MAX_CPUS.
 */
int acpi_build(uint8_t *ram, uint64_t ram_size, unsigned ncpus, uint64_t *rsdp_gpa);

/* acpi_checksum - the byte that makes @len bytes at @p sum to zero. */
uint8_t acpi_checksum(const void *p, size_t len);

#endif /* CSAN_VMM_ACPI_H */
