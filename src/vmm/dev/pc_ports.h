/* pc_ports.h: the PC's reset and power ports, and the probes answered "nothing here". */
#ifndef CSAN_VMM_PC_PORTS_H
#define CSAN_VMM_PC_PORTS_H

#include <stdbool.h>
#include <stdint.h>

struct vcpu;

/* The i8042 keyboard controller: data and command/status. */
#define I8042_PORT_DATA	   0x60
#define I8042_PORT_COMMAND 0x64
/* PCI configuration mechanism #1 (0xcf8 address, 0xcfc data) with 0xcf9 inside. */
#define PCI_CONF1_PORT	 0xcf8
#define PCI_CONF1_NPORTS 8
#define PCI_RESET_PORT	 0xcf9
/* The ACPI PM1a control register the FADT names (acpi.c): S5 powers off. */
#define ACPI_PM_PORT	   0x600
#define ACPI_PM_NPORTS	   0x10
#define ACPI_PM1A_EVT_PORT ACPI_PM_PORT
#define ACPI_PM1A_EN_PORT  (ACPI_PM_PORT + 2)
#define ACPI_PM1A_CNT_PORT (ACPI_PM_PORT + 4)
#define ACPI_PM1_EVT_LEN   4
#define ACPI_PM1_CNT_LEN   2
/* The value the FADT's RESET_REG asks written to PCI_RESET_PORT. */
#define PCI_RESET_VALUE 0x06
/* _S5's SLP_TYP in the DSDT (acpi.c), as the guest writes it to PM1a_CNT. */
#define ACPI_S5_SLP_TYP 5

enum power_event { POWER_RESET, POWER_OFF };

/* What the guest asked for, and how (for the message); returns VCPU_STOP. */
typedef int (*power_fn)(struct vcpu *vcpu, enum power_event ev, const char *how);

struct pc_ports {
	power_fn power;
	uint32_t pci_address; /* atomic: the last 0xcf8 write, read back as written */
	uint16_t pm1_enable;  /* atomic: PM1a_EN, read back (ACPICA checks GBL_EN) */
};

/*
 * The pio_handlers, @ctx a struct pc_ports.  i8042: status reads "empty",
 * command 0xfe (pulse the reset line) resets.  PCI: no devices (all ones)
 * and 0xcf9 bit 2 resets.  ACPI PM: SLP_EN with SLP_TYP 5 powers off;
 * the enable register reads back, the rest reads zero (no events).
 */
int i8042_io(struct vcpu *vcpu, void *ctx, uint16_t port, bool is_write, uint8_t *data,
	     unsigned size, unsigned count);
int pci_conf1_io(struct vcpu *vcpu, void *ctx, uint16_t port, bool is_write, uint8_t *data,
		 unsigned size, unsigned count);
int acpi_pm_io(struct vcpu *vcpu, void *ctx, uint16_t port, bool is_write, uint8_t *data,
	       unsigned size, unsigned count);

#endif /* CSAN_VMM_PC_PORTS_H */
