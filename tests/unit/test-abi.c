/* test-abi.c: the host/guest ABI layouts are what the guest compiler sees. */
#include <stddef.h>
#include <stdint.h>

#include "csan/abi.h"
#include "csan/pvh.h"
#include "check.h"

/*
 * The _Static_asserts in the headers pin the sizes; these pin the field
 * offsets a reordering would move without changing a size, which would
 * silently break the guest/host contract.
 */
int main(void)
{
	CHECK_EQ_U64(offsetof(struct csan_hc_puts, len), 8);
	CHECK_EQ_U64(offsetof(struct csan_hc_exit, cpu), 4);
	CHECK_EQ_U64(offsetof(struct csan_hc_fault, error_code), 8);
	CHECK_EQ_U64(offsetof(struct csan_hc_fault, message), 16);
	CHECK_EQ_U64(offsetof(struct csan_hc_fault, regs), 32);
	CHECK_EQ_U64(offsetof(struct csan_regs, rsp), 7 * 8);
	CHECK_EQ_U64(offsetof(struct csan_regs, rip), 16 * 8);
	CHECK_EQ_U64(offsetof(struct csan_regs, cr2), 20 * 8);
	CHECK_EQ_U64(offsetof(struct csan_scenario_desc, run), 16);
	CHECK_EQ_U64(offsetof(struct csan_scenario_desc, flags), 24);

	/* PVH start info: the offsets Xen's start_info.h and QEMU's option ROM use. */
	CHECK_EQ_U64(offsetof(struct pvh_start_info, modlist_paddr), 16);
	CHECK_EQ_U64(offsetof(struct pvh_start_info, cmdline_paddr), 24);
	CHECK_EQ_U64(offsetof(struct pvh_start_info, rsdp_paddr), 32);
	CHECK_EQ_U64(offsetof(struct pvh_start_info, memmap_paddr), 40);
	CHECK_EQ_U64(offsetof(struct pvh_start_info, memmap_entries), 48);
	CHECK_EQ_U64(offsetof(struct pvh_memmap_entry, type), 16);

	/* The signature spells "csan-vmm-abi" in EBX, ECX, EDX order. */
	{
		uint32_t sig[3] = { CSAN_CPUID_SIG_EBX, CSAN_CPUID_SIG_ECX,
				    CSAN_CPUID_SIG_EDX };
		CHECK(memcmp(sig, "csan-vmm-abi", 12) == 0);
	}

	/* Hypercall ports must not run into the UART or wrap the port space. */
	CHECK(CSAN_HC_PORT_BASE + CSAN_HC_PORT_COUNT <= 0x10000);
	CHECK(CSAN_HC_MAX <= CSAN_HC_PORT_COUNT);
	CHECK(CSAN_BOOT_DATA_END <= CSAN_LOW_RAM_END);
	CHECK(CSAN_KERNEL_MIN == CSAN_ACPI_END);
	return check_exit_status("test-abi");
}
