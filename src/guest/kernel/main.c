/* main.c: the boot CPU's path from the PVH entry to the chosen scenario. */
#include <csan/abi.h>

#include "acpi.h"
#include "apic.h"
#include "bootinfo.h"
#include "cmdline.h"
#include "cpu.h"
#include "csan.h"
#include "panic.h"
#include "percpu.h"
#include "platform.h"
#include "printk.h"
#include "scenario.h"
#include "smp.h"
#include "traps.h"
#include "tsc.h"

#define DEFAULT_SCENARIO "selftest"
#define DEFAULT_TIMER_HZ 1000
#define MAX_TIMER_HZ	 100000

_Static_assert(CSAN_RAM_LIMIT == 0xc0000000u, "arch/pagetables.S maps the last GiB uncached");
_Static_assert(TRAMPOLINE_BASE >= CSAN_BOOT_DATA_END && TRAMPOLINE_BASE < CSAN_LOW_RAM_END,
	       "the AP trampoline must go in the free low RAM");

static uint32_t timer_hz_from_cmdline(void)
{
	uint64_t hz = cmdline_get_u64("timer_hz", DEFAULT_TIMER_HZ);

	if (hz == 0 || hz > MAX_TIMER_HZ) {
		printk("cmdline: timer_hz=%lu is out of range 1-%u; using %u\n", (unsigned long)hz,
		       MAX_TIMER_HZ, DEFAULT_TIMER_HZ);
		hz = DEFAULT_TIMER_HZ;
	}
	return (uint32_t)hz;
}

/* The CPU list from ACPI, with this boot CPU moved to index 0. */
static unsigned int cpu_list(uint32_t *ids)
{
	static struct acpi_cpus acpi;
	uint32_t bsp = lapic_id();
	unsigned int i, n = 1;
	bool seen = false;

	acpi_find_cpus(bootinfo.rsdp_paddr, &acpi);
	ids[0] = bsp;
	for (i = 0; i < acpi.count; i++) {
		if (acpi.apic_id[i] == bsp && !seen) {
			seen = true;
			continue;
		}
		if (n < CSAN_MAX_CPUS)
			ids[n++] = acpi.apic_id[i];
	}
	if (!acpi.found)
		printk("acpi: running on the boot CPU only\n");
	else if (!seen)
		printk("acpi: the boot CPU (APIC ID %u) is not in the MADT; counting it anyway\n",
		       bsp);
	return n;
}

/*
 * kernel_main - called by arch/entry.S on the boot CPU's stack, with the
 * physical address of the PVH start info.
 */
__noreturn void kernel_main(uint64_t start_info);
__noreturn void kernel_main(uint64_t start_info)
{
	static uint32_t apic_ids[CSAN_MAX_CPUS];
	const char *scenario;
	unsigned int ncpus;
	uint64_t t0;
	uint32_t hz;

	/* Before anything can overwrite low memory. */
	bootinfo_copy(start_info);
	percpu_setup(0);
	platform_detect();
	idt_init();
	idt_load();
	if (!on_csan_vmm())
		uart_init();

	printk("csan-guest: ABI %u on %s, %lu MiB RAM, command line \"%s\"\n", CSAN_ABI_VERSION,
	       platform_name(), (unsigned long)(bootinfo_ram_bytes() >> 20), bootinfo.cmdline);
	if (!bootinfo.pvh_ok)
		panic("no PVH start info (magic 0x%x, want 0x%x)", bootinfo.pvh_magic,
		      PVH_START_MAGIC);
	if (bootinfo.cmdline_cut)
		printk("cmdline: cut to %u bytes\n", BOOT_CMDLINE_MAX - 1);
	if (bootinfo.memmap_dropped)
		printk("memmap: %u entries beyond %u ignored\n", bootinfo.memmap_dropped,
		       BOOT_MEMMAP_MAX);
	cmdline_parse(bootinfo.cmdline);
	hz = timer_hz_from_cmdline();

	pic_disable();
	lapic_init();
	percpu[0].apic_id = lapic_id();
	ncpus = cpu_list(apic_ids);
	/* Measured (if need be) before the timer takes over the APIC timer. */
	tsc_init();
	/* The race detector needs the TSC for its delays; scenarios need it on. */
	csan_init(bootinfo.cmdline);
	lapic_timer_start(hz);
	irq_enable();

	percpu[0].online = 1;
	t0 = uptime_us();
	smp_boot(apic_ids, ncpus, hz);
	printk("csan-guest: %u CPU%s online (APs started in %lu us), timer %u Hz, TSC %u kHz\n",
	       csan_ncpus(), csan_ncpus() == 1 ? "" : "s", (unsigned long)(uptime_us() - t0), hz,
	       tsc_khz_get());

	scenario = cmdline_get("scenario");
	scenario_run(scenario && *scenario ? scenario : DEFAULT_SCENARIO);
}
