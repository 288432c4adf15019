/* acpi.c: the guest's ACPI tables: RSDP, XSDT and a MADT listing the CPUs. */
#include <errno.h>
#include <string.h>

#include "csan/abi.h"
#include "vmm/acpi.h"

/* Layouts from the ACPI 6.5 specification, sections 5.2.5-5.2.12. */
struct acpi_rsdp {
	char signature[8]; /* "RSD PTR " */
	uint8_t checksum;  /* first 20 bytes */
	char oem_id[6];
	uint8_t revision; /* 2: ACPI 2.0+, has the XSDT */
	uint32_t rsdt_address;
	uint32_t length;
	uint64_t xsdt_address;
	uint8_t extended_checksum; /* whole structure */
	uint8_t reserved[3];
} __attribute__((packed));

struct acpi_header {
	char signature[4];
	uint32_t length;
	uint8_t revision;
	uint8_t checksum;
	char oem_id[6];
	char oem_table_id[8];
	uint32_t oem_revision;
	char creator_id[4];
	uint32_t creator_revision;
} __attribute__((packed));

struct acpi_madt {
	struct acpi_header h;
	uint32_t lapic_address;
	uint32_t flags;
} __attribute__((packed));

struct acpi_madt_lapic {
	uint8_t type;	/* 0 */
	uint8_t length; /* 8 */
	uint8_t processor_uid;
	uint8_t apic_id;
	uint32_t flags;
} __attribute__((packed));

struct acpi_madt_ioapic {
	uint8_t type;	/* 1 */
	uint8_t length; /* 12 */
	uint8_t ioapic_id;
	uint8_t reserved;
	uint32_t address;
	uint32_t gsi_base;
} __attribute__((packed));

_Static_assert(sizeof(struct acpi_rsdp) == 36, "RSDP layout");
_Static_assert(sizeof(struct acpi_header) == 36, "ACPI header layout");
_Static_assert(sizeof(struct acpi_madt) == 44, "MADT layout");
_Static_assert(sizeof(struct acpi_madt_lapic) == 8, "MADT local APIC layout");
_Static_assert(sizeof(struct acpi_madt_ioapic) == 12, "MADT I/O APIC layout");

#define ACPI_RSDP_V1_LEN	20
#define ACPI_MADT_TYPE_LAPIC	0
#define ACPI_MADT_TYPE_IOAPIC	1
#define ACPI_MADT_LAPIC_ENABLED 0x1u
#define ACPI_MADT_PCAT_COMPAT	0x1u /* KVM's in-kernel irqchip has the 8259s */

/* Where each table goes; the RSDP must be 16-byte aligned for the scan. */
#define ACPI_RSDP_GPA CSAN_ACPI_BASE
#define ACPI_XSDT_GPA (CSAN_ACPI_BASE + 0x40)
#define ACPI_MADT_GPA (CSAN_ACPI_BASE + 0x80)

_Static_assert(ACPI_MADT_GPA + sizeof(struct acpi_madt) +
			       CSAN_MAX_CPUS * sizeof(struct acpi_madt_lapic) +
			       sizeof(struct acpi_madt_ioapic) <=
		       CSAN_ACPI_END,
	       "ACPI tables fit their area");

uint8_t acpi_checksum(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint8_t sum = 0;

	while (len--)
		sum += *b++;
	return (uint8_t)(0 - sum);
}

static void header_init(struct acpi_header *h, const char *sig, uint32_t len, uint8_t rev)
{
	memcpy(h->signature, sig, 4);
	h->length = len;
	h->revision = rev;
	memcpy(h->oem_id, "CSAN  ", 6);
	memcpy(h->oem_table_id, "CSANVMM ", 8);
	h->oem_revision = 1;
	memcpy(h->creator_id, "CSAN", 4);
	h->creator_revision = 1;
	h->checksum = 0;
	h->checksum = acpi_checksum(h, len);
}

static void madt_build(uint8_t *at, unsigned ncpus)
{
	struct acpi_madt madt = {
		.lapic_address = CSAN_LAPIC_BASE,
		.flags = ACPI_MADT_PCAT_COMPAT,
	};
	struct acpi_madt_ioapic io = {
		.type = ACPI_MADT_TYPE_IOAPIC,
		.length = sizeof(io),
		.ioapic_id = (uint8_t)ncpus, /* APIC IDs 0..ncpus-1 are the CPUs' */
		.address = CSAN_IOAPIC_BASE,
		.gsi_base = 0,
	};
	uint32_t len = sizeof(madt);
	unsigned i;

	for (i = 0; i < ncpus; i++) {
		struct acpi_madt_lapic l = {
			.type = ACPI_MADT_TYPE_LAPIC,
			.length = sizeof(l),
			.processor_uid = (uint8_t)i,
			.apic_id = (uint8_t)i,
			.flags = ACPI_MADT_LAPIC_ENABLED,
		};

		memcpy(at + len, &l, sizeof(l));
		len += sizeof(l);
	}
	memcpy(at + len, &io, sizeof(io));
	len += sizeof(io);
	/* The header's checksum covers the entries, so it goes in last. */
	memcpy(at, &madt, sizeof(madt));
	header_init((struct acpi_header *)at, "APIC", len, 1);
}

int acpi_build(uint8_t *ram, uint64_t ram_size, unsigned ncpus, uint64_t *rsdp_gpa)
{
	struct acpi_rsdp rsdp = {
		.revision = 2,
		.length = sizeof(rsdp),
		.xsdt_address = ACPI_XSDT_GPA,
	};
	struct {
		struct acpi_header h;
		uint64_t entry;
	} __attribute__((packed)) xsdt = { .entry = ACPI_MADT_GPA };

	if (ram_size < CSAN_ACPI_END || ncpus == 0 || ncpus > CSAN_MAX_CPUS)
		return -EINVAL;
	memset(ram + CSAN_ACPI_BASE, 0, CSAN_ACPI_END - CSAN_ACPI_BASE);
	memcpy(rsdp.signature, "RSD PTR ", sizeof(rsdp.signature));
	memcpy(rsdp.oem_id, "CSAN  ", sizeof(rsdp.oem_id));
	madt_build(ram + ACPI_MADT_GPA, ncpus);
	header_init(&xsdt.h, "XSDT", sizeof(xsdt), 1);
	memcpy(ram + ACPI_XSDT_GPA, &xsdt, sizeof(xsdt));
	rsdp.checksum = acpi_checksum(&rsdp, ACPI_RSDP_V1_LEN);
	rsdp.extended_checksum = acpi_checksum(&rsdp, sizeof(rsdp));
	memcpy(ram + ACPI_RSDP_GPA, &rsdp, sizeof(rsdp));
	*rsdp_gpa = ACPI_RSDP_GPA;
	return 0;
}
