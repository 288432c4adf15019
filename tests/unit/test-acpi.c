/* test-acpi.c: the ACPI tables Linux reads: checksums, lists, the PC extras. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "csan/abi.h"
#include "vmm/dev/acpi.h"
#include "vmm/kvm/vm.h"
#include "vmm/dev/pc_ports.h"
#include "check.h"

#define RAM_SIZE (2u << 20)

static uint32_t u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t u64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static uint8_t sum(const uint8_t *p, size_t len)
{
	uint8_t s = 0;

	while (len--)
		s += *p++;
	return s;
}

/* The table at @gpa: signature @sig, a checksum that sums to zero. */
static const uint8_t *table(const uint8_t *ram, uint64_t gpa, const char *sig)
{
	const uint8_t *t = ram + gpa;

	CHECK(gpa >= CSAN_ACPI_BASE && gpa < CSAN_ACPI_END);
	CHECK(memcmp(t, sig, 4) == 0);
	CHECK(u32(t + 4) >= 36 && gpa + u32(t + 4) <= CSAN_ACPI_END);
	CHECK_EQ_U64(sum(t, u32(t + 4)), 0);
	return t;
}

/* Count MADT entries of @type; the first one's bytes in *@first. */
static unsigned madt_count(const uint8_t *madt, uint8_t type, const uint8_t **first)
{
	uint32_t len = u32(madt + 4), off = 44;
	unsigned n = 0;

	*first = NULL;
	while (off + 2 <= len && madt[off + 1] >= 2) {
		if (madt[off] == type && !n++)
			*first = madt + off;
		off += madt[off + 1];
	}
	CHECK_EQ_U64(off, len);
	return n;
}

static void test_tables(bool pc)
{
	uint8_t *ram = calloc(1, RAM_SIZE);
	const uint8_t *rsdp, *xsdt, *madt, *iso, *fadt, *dsdt;
	uint64_t rsdp_gpa = 0;

	CHECK(ram != NULL);
	if (!ram)
		return;
	CHECK(acpi_build(ram, RAM_SIZE, 4, pc, &rsdp_gpa) == 0);
	rsdp = ram + rsdp_gpa;
	CHECK(memcmp(rsdp, "RSD PTR ", 8) == 0);
	CHECK_EQ_U64(sum(rsdp, 20), 0);
	CHECK_EQ_U64(sum(rsdp, 36), 0);
	xsdt = table(ram, u64(rsdp + 24), "XSDT");
	CHECK_EQ_U64(u32(xsdt + 4), 36 + 8 * (pc ? 2 : 1));
	madt = table(ram, u64(xsdt + 36), "APIC");
	CHECK_EQ_U64(madt_count(madt, 0, &iso), 4); /* one local APIC per vCPU */
	CHECK_EQ_U64(madt_count(madt, 1, &iso), 1); /* the I/O APIC */
	CHECK_EQ_U64(madt_count(madt, 2, &iso), pc ? 2 : 0);
	if (pc && iso) {
		/* IRQ 0 on GSI 2, where the Linux profile routes the PIT. */
		CHECK_EQ_U64(iso[3], 0);
		CHECK_EQ_U64(u32(iso + 4), ACPI_PC_TIMER_GSI);
	}
	if (pc) {
		fadt = table(ram, u64(xsdt + 44), "FACP");
		CHECK_EQ_U64(u32(fadt + 64), ACPI_PM1A_CNT_PORT);  /* PM1a_CNT_BLK */
		CHECK_EQ_U64(u64(fadt + 116 + 4), PCI_RESET_PORT); /* RESET_REG address */
		CHECK_EQ_U64(fadt[128], PCI_RESET_VALUE);
		CHECK(memcmp(ram + u64(fadt + 132), "FACS", 4) == 0); /* X_FIRMWARE_CTRL */
		dsdt = table(ram, u64(fadt + 140), "DSDT");
		CHECK(memmem(dsdt + 36, u32(dsdt + 4) - 36, "_S5_", 4) != NULL);
	}
	free(ram);
}

/*
 * The I/O APIC's ID fits KVM's 4-bit register and, while it can, is no
 * CPU's: 4 CPUs -> 4, 15 -> 15, 16 and 64 -> 0 (its own name space).
 */
static void test_ioapic_id(void)
{
	static const unsigned cpus[] = { 1, 4, 15, 16, 64 }, want[] = { 1, 4, 15, 0, 0 };
	uint8_t *ram = calloc(1, RAM_SIZE);
	const uint8_t *madt, *io = NULL;
	uint64_t rsdp_gpa;
	unsigned i;

	CHECK(ram != NULL);
	if (!ram)
		return;
	for (i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++) {
		CHECK_EQ_U64(vm_ioapic_id(cpus[i]), want[i]);
		CHECK(acpi_build(ram, RAM_SIZE, cpus[i], true, &rsdp_gpa) == 0);
		madt = table(ram, u64(table(ram, u64(ram + rsdp_gpa + 24), "XSDT") + 36), "APIC");
		CHECK_EQ_U64(madt_count(madt, 0, &io), cpus[i]);
		CHECK_EQ_U64(madt_count(madt, 1, &io), 1);
		if (io)
			CHECK_EQ_U64(io[2], want[i]); /* the entry's I/O APIC ID byte */
	}
	free(ram);
}

int main(void)
{
	test_ioapic_id();
	test_tables(false);
	test_tables(true);
	return check_exit_status("test-acpi");
}
