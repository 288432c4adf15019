/* pc_ports.c: the PC's reset and power ports, and the probes answered "nothing here". */
#include <string.h>

#include "vmm/dev/pc_ports.h"
#include "vmm/kvm/vcpu.h"

#define I8042_CMD_PULSE_RESET  0xfe /* pulse output line 0: the CPU's reset */
#define PCI_RESET_CPU	       0x04 /* 0xcf9 bit 2: do the reset bits 1 and 3 chose */
#define ACPI_PM1_SLP_EN	       0x2000u
#define ACPI_PM1_SLP_TYP_SHIFT 10
#define ACPI_PM1_SLP_TYP_MASK  0x7u

/* Little-endian value of one access of @size bytes at @data. */
static uint32_t value_of(const uint8_t *data, unsigned size)
{
	uint32_t v = 0;

	memcpy(&v, data, size > 4 ? 4 : size);
	return v;
}

int i8042_io(struct vcpu *vcpu, void *ctx, uint16_t port, bool is_write, uint8_t *data,
	     unsigned size, unsigned count)
{
	struct pc_ports *p = ctx;

	/* No keyboard: status 0 (buffers empty), data 0; only the reset line is wired. */
	if (!is_write) {
		memset(data, 0, (size_t)size * count);
		return VCPU_RESUME;
	}
	if (port == I8042_PORT_COMMAND && data[0] == I8042_CMD_PULSE_RESET)
		return p->power(vcpu, POWER_RESET, "keyboard controller reset (port 0x64, 0xfe)");
	return VCPU_RESUME;
}

int pci_conf1_io(struct vcpu *vcpu, void *ctx, uint16_t port, bool is_write, uint8_t *data,
		 unsigned size, unsigned count)
{
	struct pc_ports *p = ctx;
	uint32_t v;

	if (count != 1) { /* string I/O to config space: nobody does it; answer nothing */
		if (!is_write)
			memset(data, 0xff, (size_t)size * count);
		return VCPU_RESUME;
	}
	if (port == PCI_RESET_PORT && size == 1) {
		if (is_write && (data[0] & PCI_RESET_CPU))
			return p->power(vcpu, POWER_RESET, "reset control register (port 0xcf9)");
		if (!is_write)
			data[0] = 0;
		return VCPU_RESUME;
	}
	if (port == PCI_CONF1_PORT && size == 4) {
		if (is_write) {
			__atomic_store_n(&p->pci_address, value_of(data, 4), __ATOMIC_RELAXED);
		} else {
			v = __atomic_load_n(&p->pci_address, __ATOMIC_RELAXED);
			memcpy(data, &v, 4);
		}
		return VCPU_RESUME;
	}
	/* Config data of a bus without devices: reads all ones, writes vanish. */
	if (!is_write)
		memset(data, 0xff, size);
	return VCPU_RESUME;
}

int acpi_pm_io(struct vcpu *vcpu, void *ctx, uint16_t port, bool is_write, uint8_t *data,
	       unsigned size, unsigned count)
{
	struct pc_ports *p = ctx;
	uint32_t v;

	if (port == ACPI_PM1A_EN_PORT && size == 2 && count == 1) {
		uint16_t en;

		if (is_write) {
			memcpy(&en, data, 2);
			__atomic_store_n(&p->pm1_enable, en, __ATOMIC_RELAXED);
		} else {
			en = __atomic_load_n(&p->pm1_enable, __ATOMIC_RELAXED);
			memcpy(data, &en, 2);
		}
		return VCPU_RESUME;
	}
	if (!is_write) {
		memset(data, 0, (size_t)size * count); /* no events pending */
		return VCPU_RESUME;
	}
	if (port != ACPI_PM1A_CNT_PORT || size < 2)
		return VCPU_RESUME;
	v = value_of(data, size);
	if ((v & ACPI_PM1_SLP_EN) &&
	    ((v >> ACPI_PM1_SLP_TYP_SHIFT) & ACPI_PM1_SLP_TYP_MASK) == ACPI_S5_SLP_TYP)
		return p->power(vcpu, POWER_OFF, "ACPI S5 (PM1a control, port 0x604)");
	return VCPU_RESUME;
}
