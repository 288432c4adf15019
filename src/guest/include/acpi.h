/* acpi.h: finding the CPUs in the ACPI tables (RSDP, XSDT/RSDT, MADT). */
#ifndef GUEST_ACPI_H
#define GUEST_ACPI_H

#include <csan/abi.h>

#include "compiler.h"

struct acpi_cpus {
	unsigned int count;		 /* enabled local APICs found, at most CSAN_MAX_CPUS */
	unsigned int dropped;		 /* enabled ones beyond CSAN_MAX_CPUS */
	uint32_t apic_id[CSAN_MAX_CPUS]; /* in MADT order */
	uint64_t lapic_base;
	bool found; /* a MADT was found */
};

/*
 * acpi_find_cpus - enumerate the enabled local APICs from the MADT.
 * @rsdp_hint is start_info's rsdp_paddr (0: scan the BIOS area).  Without
 * a usable MADT, returns count 0 and found false after saying why.
 */
void acpi_find_cpus(uint64_t rsdp_hint, struct acpi_cpus *out);

#endif /* GUEST_ACPI_H */
