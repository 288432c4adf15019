/* acpi.c: RSDP -> XSDT (or RSDT) -> MADT, for the list of local APICs. */
#include <csan/abi.h>

#include "acpi.h"
#include "kstring.h"
#include "printk.h"

/* Layouts from the ACPI specification (6.5), sections 5.2.5 - 5.2.12. */
struct __attribute__((packed)) acpi_rsdp {
	char signature[8]; /* "RSD PTR " */
	uint8_t checksum;  /* over the first 20 bytes */
	char oem_id[6];
	uint8_t revision; /* 0: ACPI 1.0 (RSDT only); 2: XSDT too */
	uint32_t rsdt_address;
	uint32_t length; /* revision >= 2 from here on */
	uint64_t xsdt_address;
	uint8_t extended_checksum;
	uint8_t reserved[3];
};

struct __attribute__((packed)) acpi_header {
	char signature[4];
	uint32_t length;
	uint8_t revision;
	uint8_t checksum;
	char oem_id[6];
	char oem_table_id[8];
	uint32_t oem_revision;
	uint32_t creator_id;
	uint32_t creator_revision;
};

struct __attribute__((packed)) acpi_madt {
	struct acpi_header header;
	uint32_t lapic_address;
	uint32_t flags;
	/* followed by variable-length entries */
};

struct __attribute__((packed)) madt_entry {
	uint8_t type;
	uint8_t length;
};

/* MADT entry types. */
enum {
	MADT_LOCAL_APIC = 0,
	MADT_LAPIC_ADDRESS_OVERRIDE = 5,
	MADT_LOCAL_X2APIC = 9,
};

struct __attribute__((packed)) madt_local_apic {
	struct madt_entry h;
	uint8_t acpi_processor_id;
	uint8_t apic_id;
	uint32_t flags;
};

struct __attribute__((packed)) madt_lapic_override {
	struct madt_entry h;
	uint16_t reserved;
	uint64_t address;
};

#define MADT_LAPIC_ENABLED 0x1

_Static_assert(sizeof(struct acpi_rsdp) == 36, "RSDP layout");
_Static_assert(sizeof(struct acpi_header) == 36, "SDT header layout");
_Static_assert(sizeof(struct madt_local_apic) == 8, "MADT local APIC layout");

#define RSDP_V1_LENGTH 20
/* Where a BIOS keeps the RSDP (ACPI 5.2.5.1); csan-vmm uses it too. */
#define BIOS_AREA_START CSAN_ACPI_BASE
#define BIOS_AREA_END	CSAN_ACPI_END
/* Tables must lie in the identity-mapped 4 GiB; anything else is corrupt. */
#define ACPI_ADDR_LIMIT 0x100000000ull

static uint8_t checksum(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint8_t sum = 0;

	while (len--)
		sum += *b++;
	return sum;
}

static bool rsdp_valid(const struct acpi_rsdp *r)
{
	if (memcmp(r->signature, "RSD PTR ", 8) || checksum(r, RSDP_V1_LENGTH))
		return false;
	if (r->revision >= 2 && (r->length < sizeof(*r) || checksum(r, r->length)))
		return false;
	return true;
}

static const struct acpi_rsdp *find_rsdp(uint64_t hint)
{
	uintptr_t p;

	if (hint && hint < ACPI_ADDR_LIMIT) {
		const struct acpi_rsdp *r = (const void *)(uintptr_t)hint;

		if (rsdp_valid(r))
			return r;
		printk("acpi: no valid RSDP at the start info's 0x%lx; scanning\n",
		       (unsigned long)hint);
	}
	/* The RSDP sits on a 16-byte boundary. */
	for (p = BIOS_AREA_START; p < BIOS_AREA_END; p += 16) {
		const struct acpi_rsdp *r = (const void *)p;

		if (rsdp_valid(r))
			return r;
	}
	return NULL;
}

static const struct acpi_header *table_at(uint64_t addr, const char *what)
{
	const struct acpi_header *h;

	if (!addr || addr >= ACPI_ADDR_LIMIT - sizeof(*h)) {
		printk("acpi: %s address 0x%lx is out of range\n", what, (unsigned long)addr);
		return NULL;
	}
	h = (const void *)(uintptr_t)addr;
	if (h->length < sizeof(*h) || addr + h->length > ACPI_ADDR_LIMIT) {
		printk("acpi: %s at 0x%lx has a bad length %u\n", what, (unsigned long)addr,
		       h->length);
		return NULL;
	}
	/* A bad checksum is worth a warning, not refusing the table. */
	if (checksum(h, h->length))
		printk("acpi: %s at 0x%lx (%.4s) has a bad checksum\n", what, (unsigned long)addr,
		       h->signature);
	return h;
}

/* Search the XSDT (8-byte entries) or RSDT (4-byte entries) for the MADT. */
static const struct acpi_madt *find_madt(const struct acpi_rsdp *rsdp)
{
	const struct acpi_header *root;
	size_t entry_size, n, i;
	const uint8_t *entries;

	if (rsdp->revision >= 2 && rsdp->xsdt_address) {
		root = table_at(rsdp->xsdt_address, "XSDT");
		entry_size = 8;
	} else {
		root = table_at(rsdp->rsdt_address, "RSDT");
		entry_size = 4;
	}
	if (!root)
		return NULL;
	entries = (const uint8_t *)(root + 1);
	n = (root->length - sizeof(*root)) / entry_size;
	for (i = 0; i < n; i++) {
		uint64_t addr = 0;
		const struct acpi_header *h;

		/* Entries are not necessarily aligned: copy them out. */
		memcpy(&addr, entries + i * entry_size, entry_size);
		h = table_at(addr, "table");
		if (h && !memcmp(h->signature, "APIC", 4) && h->length >= sizeof(struct acpi_madt))
			return (const struct acpi_madt *)h;
	}
	return NULL;
}

static void parse_madt(const struct acpi_madt *madt, struct acpi_cpus *out)
{
	const uint8_t *p = (const uint8_t *)(madt + 1);
	const uint8_t *end = (const uint8_t *)madt + madt->header.length;
	unsigned int x2apic = 0;

	out->lapic_base = madt->lapic_address;
	while (p + sizeof(struct madt_entry) <= end) {
		const struct madt_entry *e = (const void *)p;

		if (e->length < sizeof(*e) || p + e->length > end)
			break;
		if (e->type == MADT_LOCAL_APIC && e->length >= sizeof(struct madt_local_apic)) {
			const struct madt_local_apic *l = (const void *)e;

			/* Disabled entries are hot-plug slots, not CPUs. */
			if (l->flags & MADT_LAPIC_ENABLED) {
				if (out->count < CSAN_MAX_CPUS)
					out->apic_id[out->count++] = l->apic_id;
				else
					out->dropped++;
			}
		} else if (e->type == MADT_LAPIC_ADDRESS_OVERRIDE &&
			   e->length >= sizeof(struct madt_lapic_override)) {
			out->lapic_base = ((const struct madt_lapic_override *)e)->address;
		} else if (e->type == MADT_LOCAL_X2APIC) {
			x2apic++;
		}
		p += e->length;
	}
	/* Firmware lists x2APIC entries only for IDs xAPIC cannot address. */
	if (x2apic)
		printk("acpi: ignoring %u x2APIC entries (this guest drives xAPIC)\n", x2apic);
}

void acpi_find_cpus(uint64_t rsdp_hint, struct acpi_cpus *out)
{
	const struct acpi_rsdp *rsdp;
	const struct acpi_madt *madt;

	memset(out, 0, sizeof(*out));
	rsdp = find_rsdp(rsdp_hint);
	if (!rsdp) {
		printk("acpi: no RSDP found (start info or 0x%x-0x%x)\n", BIOS_AREA_START,
		       BIOS_AREA_END - 1);
		return;
	}
	madt = find_madt(rsdp);
	if (!madt) {
		printk("acpi: no MADT in the %s\n", rsdp->revision >= 2 ? "XSDT" : "RSDT");
		return;
	}
	out->found = true;
	parse_madt(madt, out);
	if (out->dropped)
		printk("acpi: %u more CPUs than the %u this guest supports; ignoring them\n",
		       out->dropped, CSAN_MAX_CPUS);
	if (out->lapic_base != CSAN_LAPIC_BASE)
		printk("acpi: local APIC at 0x%lx, not 0x%x: not supported\n",
		       (unsigned long)out->lapic_base, CSAN_LAPIC_BASE);
}
