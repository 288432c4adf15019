/* apic.c: the local APIC (xAPIC MMIO), its timer and IPIs; the legacy PICs. */
#include <csan/abi.h>

#include "apic.h"
#include "cpu.h"
#include "panic.h"
#include "platform.h"
#include "x86.h"

/* Local APIC registers (SDM Vol. 3, 11.4.1, table 11-1): byte offsets. */
enum {
	APIC_ID = 0x020,
	APIC_TPR = 0x080,
	APIC_EOI = 0x0b0,
	APIC_SVR = 0x0f0,
	APIC_ESR = 0x280,
	APIC_ICR_LO = 0x300,
	APIC_ICR_HI = 0x310,
	APIC_LVT_TIMER = 0x320,
	APIC_LVT_THERMAL = 0x330,
	APIC_LVT_PERF = 0x340,
	APIC_LVT_LINT0 = 0x350,
	APIC_LVT_LINT1 = 0x360,
	APIC_LVT_ERROR = 0x370,
	APIC_TIMER_ICR = 0x380, /* initial count */
	APIC_TIMER_CCR = 0x390, /* current count */
	APIC_TIMER_DCR = 0x3e0, /* divide configuration */
};

#define APIC_SVR_ENABLE		BIT(8)
#define APIC_LVT_MASKED		BIT(16)
#define APIC_LVT_TIMER_PERIODIC BIT(17)
#define APIC_ICR_DM_FIXED	(0 << 8)
#define APIC_ICR_DM_INIT	(5 << 8)
#define APIC_ICR_DM_STARTUP	(6 << 8)
#define APIC_ICR_BUSY		BIT(12) /* delivery status: send pending */
#define APIC_ICR_ASSERT		BIT(14)
#define APIC_ICR_LEVEL		BIT(15)
#define APIC_ICR_DEST_SHIFT	24

/*
 * Divide configuration values (SDM 11.5.4, figure 11-10): the divisor's
 * code is not its log2, so it is a table.
 */
static const struct {
	uint32_t divisor;
	uint32_t dcr;
} apic_dividers[] = {
	{ 1, 0xb },  { 2, 0x0 },  { 4, 0x1 },  { 8, 0x2 },
	{ 16, 0x3 }, { 32, 0x8 }, { 64, 0x9 }, { 128, 0xa },
};

/* The identity map makes the default base usable as a pointer. */
static volatile uint32_t *const lapic = (volatile uint32_t *)(uintptr_t)CSAN_LAPIC_BASE;

static inline uint32_t lapic_read(uint32_t reg)
{
	return lapic[reg / 4];
}

static inline void lapic_write(uint32_t reg, uint32_t v)
{
	lapic[reg / 4] = v;
}

uint32_t lapic_id(void)
{
	return lapic_read(APIC_ID) >> 24;
}

void lapic_eoi(void)
{
	lapic_write(APIC_EOI, 0);
}

void lapic_init(void)
{
	uint64_t base = rdmsr(MSR_APIC_BASE);

	/*
	 * The guest drives the APIC through its MMIO page at the default
	 * address: insist on that (xAPIC mode, not x2APIC; not relocated).
	 */
	if ((base & ~0xffful) != CSAN_LAPIC_BASE || (base & APIC_BASE_X2APIC))
		panic("local APIC base MSR is 0x%lx; this guest needs xAPIC mode at 0x%x",
		      (unsigned long)base, CSAN_LAPIC_BASE);
	if (!(base & APIC_BASE_ENABLE))
		wrmsr(MSR_APIC_BASE, base | APIC_BASE_ENABLE);

	/*
	 * Mask everything first.  KVM and BIOSes leave LINT0 in ExtINT mode
	 * on the boot CPU (virtual wire), which would let the legacy PIC
	 * deliver interrupts; LINT1 (NMI) and the rest are unused.
	 */
	lapic_write(APIC_LVT_TIMER, APIC_LVT_MASKED);
	lapic_write(APIC_LVT_LINT0, APIC_LVT_MASKED);
	lapic_write(APIC_LVT_LINT1, APIC_LVT_MASKED);
	lapic_write(APIC_LVT_ERROR, APIC_LVT_MASKED);
	lapic_write(APIC_LVT_THERMAL, APIC_LVT_MASKED);
	lapic_write(APIC_LVT_PERF, APIC_LVT_MASKED);
	lapic_write(APIC_TPR, 0);
	lapic_write(APIC_SVR, APIC_SVR_ENABLE | SPURIOUS_VECTOR);
	/* Clear any error latched before now (write, then read). */
	lapic_write(APIC_ESR, 0);
	(void)lapic_read(APIC_ESR);
	lapic_eoi();
}

uint32_t lapic_timer_start(uint32_t hz)
{
	uint64_t per_tick = (uint64_t)platform.apic_khz * 1000 / hz;
	unsigned int i;

	/* The smallest divisor whose count fits the 32-bit register. */
	for (i = 0; i < ARRAY_SIZE(apic_dividers) - 1; i++)
		if (per_tick / apic_dividers[i].divisor <= 0xffffffffu)
			break;
	per_tick /= apic_dividers[i].divisor;
	if (per_tick > 0xffffffffu)
		per_tick = 0xffffffffu;
	if (per_tick == 0)
		per_tick = 1;

	lapic_write(APIC_TIMER_DCR, apic_dividers[i].dcr);
	lapic_write(APIC_LVT_TIMER, APIC_LVT_TIMER_PERIODIC | TIMER_VECTOR);
	/* Writing the initial count starts the timer. */
	lapic_write(APIC_TIMER_ICR, (uint32_t)per_tick);
	return (uint32_t)per_tick;
}

uint32_t lapic_measure_tsc_khz(uint32_t ms)
{
	uint64_t apic_ticks = (uint64_t)platform.apic_khz * ms;
	uint32_t c0, c1;
	uint64_t t0, t1;

	/* One-shot, masked, divide by 1: the count just runs down. */
	lapic_write(APIC_TIMER_DCR, apic_dividers[0].dcr);
	lapic_write(APIC_LVT_TIMER, APIC_LVT_MASKED);
	lapic_write(APIC_TIMER_ICR, 0xffffffffu);
	c0 = lapic_read(APIC_TIMER_CCR);
	t0 = rdtsc();
	do {
		c1 = lapic_read(APIC_TIMER_CCR);
		t1 = rdtsc();
	} while (c0 - c1 < apic_ticks && c1 != 0);
	lapic_write(APIC_TIMER_ICR, 0);
	if (c0 == c1)
		return 0;
	return (uint32_t)((t1 - t0) * platform.apic_khz / (c0 - c1));
}

static void lapic_icr_send(uint32_t apic_id, uint32_t low)
{
	lapic_write(APIC_ICR_HI, apic_id << APIC_ICR_DEST_SHIFT);
	/* Writing the low half sends. */
	lapic_write(APIC_ICR_LO, low);
	while (lapic_read(APIC_ICR_LO) & APIC_ICR_BUSY)
		cpu_relax();
}

void lapic_send_ipi(uint32_t apic_id, uint8_t vector)
{
	uint64_t flags = irq_save();

	/* ICR_HI then ICR_LO must not be split by an interrupt that sends too. */
	lapic_icr_send(apic_id, APIC_ICR_DM_FIXED | APIC_ICR_ASSERT | vector);
	irq_restore(flags);
}

void lapic_send_init(uint32_t apic_id)
{
	uint64_t flags = irq_save();

	/* Assert, then de-assert, as the MP specification's sequence has it. */
	lapic_icr_send(apic_id, APIC_ICR_DM_INIT | APIC_ICR_LEVEL | APIC_ICR_ASSERT);
	lapic_icr_send(apic_id, APIC_ICR_DM_INIT | APIC_ICR_LEVEL);
	irq_restore(flags);
}

void lapic_send_sipi(uint32_t apic_id, uint8_t page)
{
	uint64_t flags = irq_save();

	lapic_icr_send(apic_id, APIC_ICR_DM_STARTUP | APIC_ICR_ASSERT | page);
	irq_restore(flags);
}

/* The 8259 pair: command and data ports, initialization words. */
enum {
	PIC1_CMD = 0x20,
	PIC1_DATA = 0x21,
	PIC2_CMD = 0xa0,
	PIC2_DATA = 0xa1,
	PIC_ICW1_INIT = 0x11, /* edge, cascade, ICW4 follows */
	PIC_ICW3_SLAVE_AT_IRQ2 = 0x04,
	PIC_ICW3_SLAVE_ID = 0x02,
	PIC_ICW4_8086 = 0x01,
	PIC_MASK_ALL = 0xff,
};

void pic_disable(void)
{
	/*
	 * Remap first so that even a spurious PIC interrupt cannot land on
	 * an exception vector, then mask every line.  The local APIC's LINT0
	 * is masked too (lapic_init), so nothing should get through at all.
	 */
	outb(PIC1_CMD, PIC_ICW1_INIT);
	outb(PIC2_CMD, PIC_ICW1_INIT);
	outb(PIC1_DATA, PIC_VECTOR_BASE);
	outb(PIC2_DATA, PIC_VECTOR_BASE + 8);
	outb(PIC1_DATA, PIC_ICW3_SLAVE_AT_IRQ2);
	outb(PIC2_DATA, PIC_ICW3_SLAVE_ID);
	outb(PIC1_DATA, PIC_ICW4_8086);
	outb(PIC2_DATA, PIC_ICW4_8086);
	outb(PIC1_DATA, PIC_MASK_ALL);
	outb(PIC2_DATA, PIC_MASK_ALL);
}
