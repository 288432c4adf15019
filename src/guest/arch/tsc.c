/* tsc.c: the TSC as the guest's clock: frequency, delays, deadlines. */
#include "apic.h"
#include "cpu.h"
#include "panic.h"
#include "platform.h"
#include "tsc.h"

static uint32_t tsc_khz;
static uint64_t tsc_boot;

/* Long enough to average out an emulator's jitter, short enough not to matter. */
#define TSC_MEASURE_MS 10

void tsc_init(void)
{
	tsc_boot = rdtsc();
	tsc_khz = platform.tsc_khz;
	if (!tsc_khz)
		tsc_khz = lapic_measure_tsc_khz(TSC_MEASURE_MS);
	if (!tsc_khz)
		panic("cannot tell the TSC frequency: the local APIC timer does not count");
}

uint32_t tsc_khz_get(void)
{
	return tsc_khz;
}

uint64_t uptime_us(void)
{
	return (rdtsc() - tsc_boot) * 1000 / tsc_khz;
}

uint64_t deadline_after_us(uint64_t us)
{
	return rdtsc() + us * tsc_khz / 1000;
}

bool deadline_passed(uint64_t deadline)
{
	return (int64_t)(rdtsc() - deadline) >= 0;
}

void udelay(uint64_t us)
{
	uint64_t end = deadline_after_us(us);

	while (!deadline_passed(end))
		cpu_relax();
}
