/* acpi.h: the guest's ACPI tables: RSDP, XSDT, a MADT listing the CPUs, the PC's FADT. */
#ifndef CSAN_VMM_ACPI_H
#define CSAN_VMM_ACPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * acpi_build - write RSDP (revision 2), XSDT and MADT into guest RAM
 * (@ram, @ram_size bytes) at CSAN_ACPI_BASE: one enabled local APIC per
 * vCPU with APIC ID = index, and an I/O APIC with ID @ncpus at
 * CSAN_IOAPIC_BASE, GSI base 0.  With @pc (a Linux guest), also what a
 * PC's firmware describes: the MADT's interrupt source overrides (IRQ 0 on
 * GSI ACPI_PC_TIMER_GSI, the SCI), and a FADT with its FACS and a DSDT
 * holding _S5 (reset and power-off ports, pc_ports.h).  Stores the RSDP's
 * address in @rsdp_gpa.  Returns 0, or -EINVAL when RAM does not reach the
 * ACPI area or @ncpus is 0 or above CSAN_MAX_CPUS.
 */
int acpi_build(uint8_t *ram, uint64_t ram_size, unsigned ncpus, bool pc, uint64_t *rsdp_gpa);

/* The GSI (I/O APIC pin) the PIT's ISA IRQ 0 arrives on, as on PCs. */
#define ACPI_PC_TIMER_GSI 2

/* acpi_checksum - the byte that makes @len bytes at @p sum to zero. */
uint8_t acpi_checksum(const void *p, size_t len);

#endif /* CSAN_VMM_ACPI_H */
