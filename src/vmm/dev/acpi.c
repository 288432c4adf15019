/* acpi.c: the guest's ACPI tables: RSDP, XSDT, a MADT listing the CPUs, the PC's FADT. */
#include <errno.h>
#include <string.h>

#include "csan/abi.h"
#include "vmm/dev/acpi.h"
#include "vmm/kvm/vm.h"
#include "vmm/dev/pc_ports.h"

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

/* Interrupt source override: ISA IRQ @source arrives on @gsi. */
struct acpi_madt_iso {
	uint8_t type;	/* 2 */
	uint8_t length; /* 10 */
	uint8_t bus;	/* 0: ISA */
	uint8_t source;
	uint32_t gsi;
	uint16_t flags; /* polarity [1:0], trigger mode [3:2] */
} __attribute__((packed));

/* Generic address structure (section 5.2.3.2). */
struct acpi_gas {
	uint8_t space_id; /* 1: system I/O */
	uint8_t bit_width;
	uint8_t bit_offset;
	uint8_t access_size; /* 1 byte, 2 word, 3 dword */
	uint64_t address;
} __attribute__((packed));

/* The FADT, revision 6 (section 5.2.9). */
struct acpi_fadt {
	struct acpi_header h;
	uint32_t firmware_ctrl, dsdt;
	uint8_t reserved0, preferred_pm_profile;
	uint16_t sci_int;
	uint32_t smi_cmd;
	uint8_t acpi_enable, acpi_disable, s4bios_req, pstate_cnt;
	uint32_t pm1a_evt_blk, pm1b_evt_blk, pm1a_cnt_blk, pm1b_cnt_blk, pm2_cnt_blk;
	uint32_t pm_tmr_blk, gpe0_blk, gpe1_blk;
	uint8_t pm1_evt_len, pm1_cnt_len, pm2_cnt_len, pm_tmr_len, gpe0_blk_len, gpe1_blk_len;
	uint8_t gpe1_base, cst_cnt;
	uint16_t p_lvl2_lat, p_lvl3_lat, flush_size, flush_stride;
	uint8_t duty_offset, duty_width, day_alrm, mon_alrm, century;
	uint16_t iapc_boot_arch;
	uint8_t reserved1;
	uint32_t flags;
	struct acpi_gas reset_reg;
	uint8_t reset_value;
	uint16_t arm_boot_arch;
	uint8_t minor_version;
	uint64_t x_firmware_ctrl, x_dsdt;
	struct acpi_gas x_pm1a_evt_blk, x_pm1b_evt_blk, x_pm1a_cnt_blk, x_pm1b_cnt_blk;
	struct acpi_gas x_pm2_cnt_blk, x_pm_tmr_blk, x_gpe0_blk, x_gpe1_blk;
	struct acpi_gas sleep_control_reg, sleep_status_reg;
	uint64_t hypervisor_vendor_id;
} __attribute__((packed));

/* The FACS (section 5.2.10): no header checksum, 64-byte aligned. */
struct acpi_facs {
	char signature[4];
	uint32_t length;
	uint32_t hardware_signature;
	uint32_t firmware_waking_vector;
	uint32_t global_lock;
	uint32_t flags;
	uint64_t x_firmware_waking_vector;
	uint8_t version;
	uint8_t reserved[3];
	uint32_t ospm_flags;
	uint8_t reserved2[24];
} __attribute__((packed));

_Static_assert(sizeof(struct acpi_madt_iso) == 10, "MADT override layout");
_Static_assert(sizeof(struct acpi_gas) == 12, "GAS layout");
_Static_assert(sizeof(struct acpi_fadt) == 276, "FADT layout");
_Static_assert(sizeof(struct acpi_facs) == 64, "FACS layout");
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
#define ACPI_MADT_TYPE_ISO	2
#define ACPI_ISO_CONFORMS	0x0u /* polarity and trigger as the bus says */
#define ACPI_ISO_HIGH_LEVEL	0xdu /* active high, level: the SCI, as QEMU has it */
#define ACPI_GAS_IO		1
#define ACPI_GAS_BYTE		1
#define ACPI_GAS_WORD		2
#define ACPI_GAS_DWORD		3
#define ACPI_FADT_WBINVD	(1u << 0)
#define ACPI_FADT_PWR_BUTTON	(1u << 4) /* no fixed power button */
#define ACPI_FADT_SLP_BUTTON	(1u << 5) /* no fixed sleep button */
#define ACPI_FADT_RESET_REG_SUP (1u << 10)
#define ACPI_IAPC_LEGACY	(1u << 0) /* ISA devices (the 16550, the RTC) */
#define ACPI_IAPC_NO_VGA	(1u << 2)
#define ACPI_FADT_SCI_IRQ	9
#define ACPI_RTC_CENTURY_REG	0x32 /* cmos.c */

/*
 * The DSDT's whole AML body: Name (_S5_, Package () { 5, 0, 0, 0 }), the
 * one object Linux needs to power off through PM1a_CNT (ACPI 6.5 section
 * 20: NameOp, NameString, PackageOp, PkgLength, NumElements, BytePrefix 5,
 * ZeroOp x3).
 */
static const uint8_t dsdt_aml[] = { 0x08, '_',	'S',  '5',  '_',
				    0x12, 0x07, 0x04, 0x0a, ACPI_S5_SLP_TYP,
				    0x00, 0x00, 0x00 };

/* Where each table goes; the RSDP must be 16-byte aligned for the scan. */
#define ACPI_RSDP_GPA	   CSAN_ACPI_BASE
#define ACPI_XSDT_GPA	   (CSAN_ACPI_BASE + 0x40)
#define ACPI_MADT_GPA	   (CSAN_ACPI_BASE + 0x80)
#define ACPI_FACS_GPA	   (CSAN_ACPI_BASE + 0x8000)
#define ACPI_FADT_GPA	   (CSAN_ACPI_BASE + 0x8040)
#define ACPI_DSDT_GPA	   (CSAN_ACPI_BASE + 0x8200)
#define ACPI_MADT_MAX_ISOS 2

_Static_assert(ACPI_MADT_GPA + sizeof(struct acpi_madt) +
			       CSAN_MAX_CPUS * sizeof(struct acpi_madt_lapic) +
			       sizeof(struct acpi_madt_ioapic) +
			       ACPI_MADT_MAX_ISOS * sizeof(struct acpi_madt_iso) <=
		       ACPI_FACS_GPA,
	       "the MADT ends before the FACS");
_Static_assert(ACPI_FADT_GPA >= ACPI_FACS_GPA + sizeof(struct acpi_facs) &&
		       ACPI_DSDT_GPA >= ACPI_FADT_GPA + sizeof(struct acpi_fadt) &&
		       ACPI_DSDT_GPA + sizeof(struct acpi_header) + sizeof(dsdt_aml) <=
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

/* ISA IRQ @source on @gsi; returns the bytes written at @at. */
static uint32_t madt_iso(uint8_t *at, uint8_t source, uint32_t gsi, uint16_t flags)
{
	struct acpi_madt_iso iso = {
		.type = ACPI_MADT_TYPE_ISO,
		.length = sizeof(iso),
		.bus = 0,
		.source = source,
		.gsi = gsi,
		.flags = flags,
	};

	memcpy(at, &iso, sizeof(iso));
	return sizeof(iso);
}

static void madt_build(uint8_t *at, unsigned ncpus, bool pc)
{
	struct acpi_madt madt = {
		.lapic_address = CSAN_LAPIC_BASE,
		.flags = ACPI_MADT_PCAT_COMPAT,
	};
	struct acpi_madt_ioapic io = {
		.type = ACPI_MADT_TYPE_IOAPIC,
		.length = sizeof(io),
		.ioapic_id = (uint8_t)vm_ioapic_id(ncpus),
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
	if (pc) {
		/* The PIT's IRQ 0 on pin 2, as on PCs and as vm_route_pc_irqs() wires it. */
		len += madt_iso(at + len, 0, ACPI_PC_TIMER_GSI, ACPI_ISO_CONFORMS);
		len += madt_iso(at + len, ACPI_FADT_SCI_IRQ, ACPI_FADT_SCI_IRQ,
				ACPI_ISO_HIGH_LEVEL);
	}
	/* The header's checksum covers the entries, so it goes in last. */
	memcpy(at, &madt, sizeof(madt));
	header_init((struct acpi_header *)at, "APIC", len, 1);
}

static struct acpi_gas gas_io(uint16_t port, uint8_t bytes, uint8_t access)
{
	return (struct acpi_gas){ ACPI_GAS_IO, (uint8_t)(bytes * 8), 0, access, port };
}

/*
 * The FADT with its FACS and DSDT: PM1a event and control blocks in the
 * ACPI PM ports (pc_ports.c) so that S5 powers off, the reset register
 * at 0xcf9, the RTC's century byte.  No SMI command port: the "firmware"
 * starts in ACPI mode.  No PM timer: kvm-clock is the guest's clock.
 */
static void fadt_build(uint8_t *ram)
{
	struct acpi_facs facs = { .length = sizeof(facs), .version = 2 };
	struct acpi_fadt f = {
		.firmware_ctrl = ACPI_FACS_GPA,
		.dsdt = ACPI_DSDT_GPA,
		.sci_int = ACPI_FADT_SCI_IRQ,
		.pm1a_evt_blk = ACPI_PM1A_EVT_PORT,
		.pm1a_cnt_blk = ACPI_PM1A_CNT_PORT,
		.pm1_evt_len = ACPI_PM1_EVT_LEN,
		.pm1_cnt_len = ACPI_PM1_CNT_LEN,
		.century = ACPI_RTC_CENTURY_REG,
		.iapc_boot_arch = ACPI_IAPC_LEGACY | ACPI_IAPC_NO_VGA,
		.flags = ACPI_FADT_WBINVD | ACPI_FADT_PWR_BUTTON | ACPI_FADT_SLP_BUTTON |
			 ACPI_FADT_RESET_REG_SUP,
		.reset_reg = gas_io(PCI_RESET_PORT, 1, ACPI_GAS_BYTE),
		.reset_value = PCI_RESET_VALUE,
		.minor_version = 5,
		.x_firmware_ctrl = ACPI_FACS_GPA,
		.x_dsdt = ACPI_DSDT_GPA,
		.x_pm1a_evt_blk = gas_io(ACPI_PM1A_EVT_PORT, ACPI_PM1_EVT_LEN, ACPI_GAS_WORD),
		.x_pm1a_cnt_blk = gas_io(ACPI_PM1A_CNT_PORT, ACPI_PM1_CNT_LEN, ACPI_GAS_WORD),
	};
	uint8_t *dsdt = ram + ACPI_DSDT_GPA;

	memcpy(facs.signature, "FACS", 4);
	memcpy(ram + ACPI_FACS_GPA, &facs, sizeof(facs));
	memcpy(dsdt + sizeof(struct acpi_header), dsdt_aml, sizeof(dsdt_aml));
	header_init((struct acpi_header *)dsdt, "DSDT",
		    (uint32_t)(sizeof(struct acpi_header) + sizeof(dsdt_aml)), 2);
	memcpy(ram + ACPI_FADT_GPA, &f, sizeof(f));
	header_init((struct acpi_header *)(ram + ACPI_FADT_GPA), "FACP", sizeof(f), 6);
}

int acpi_build(uint8_t *ram, uint64_t ram_size, unsigned ncpus, bool pc, uint64_t *rsdp_gpa)
{
	struct acpi_rsdp rsdp = {
		.revision = 2,
		.length = sizeof(rsdp),
		.xsdt_address = ACPI_XSDT_GPA,
	};
	struct {
		struct acpi_header h;
		uint64_t entry[2];
	} __attribute__((packed)) xsdt = { .entry = { ACPI_MADT_GPA, ACPI_FADT_GPA } };
	/* Without the PC's FADT, the XSDT lists the MADT only. */
	uint32_t xsdt_len = (uint32_t)(sizeof(xsdt) - (pc ? 0 : sizeof(xsdt.entry[1])));

	if (ram_size < CSAN_ACPI_END || ncpus == 0 || ncpus > CSAN_MAX_CPUS)
		return -EINVAL;
	memset(ram + CSAN_ACPI_BASE, 0, CSAN_ACPI_END - CSAN_ACPI_BASE);
	memcpy(rsdp.signature, "RSD PTR ", sizeof(rsdp.signature));
	memcpy(rsdp.oem_id, "CSAN  ", sizeof(rsdp.oem_id));
	madt_build(ram + ACPI_MADT_GPA, ncpus, pc);
	if (pc)
		fadt_build(ram);
	else
		xsdt.entry[1] = 0;
	header_init(&xsdt.h, "XSDT", xsdt_len, 1);
	memcpy(ram + ACPI_XSDT_GPA, &xsdt, sizeof(xsdt));
	rsdp.checksum = acpi_checksum(&rsdp, ACPI_RSDP_V1_LEN);
	rsdp.extended_checksum = acpi_checksum(&rsdp, sizeof(rsdp));
	memcpy(ram + ACPI_RSDP_GPA, &rsdp, sizeof(rsdp));
	*rsdp_gpa = ACPI_RSDP_GPA;
	return 0;
}
