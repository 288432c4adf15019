/* idt.c: the interrupt descriptor table and the C side of interrupt entry. */
#include "apic.h"
#include "exception_hook.h"
#include "panic.h"
#include "percpu.h"
#include "traps.h"
#include "x86.h"

struct idt_gate {
	uint16_t offset_lo;
	uint16_t selector;
	uint8_t ist;
	uint8_t type_attr;
	uint16_t offset_mid;
	uint32_t offset_hi;
	uint32_t reserved;
};
_Static_assert(sizeof(struct idt_gate) == 16, "64-bit IDT gate");

struct __attribute__((packed)) idt_ptr {
	uint16_t limit;
	uint64_t base;
};

/* arch/vectors.S: X86_NR_VECTORS stubs, 16 bytes apart. */
extern const char interrupt_stubs[];
#define STUB_STRIDE 16

static struct idt_gate idt[X86_NR_VECTORS] __aligned(16);

/*
 * A scenario's per-tick work, run in interrupt context on every CPU
 * (timer_hook_set).  Read once per tick with a marked load: it is set and
 * cleared while other CPUs take ticks.
 */
static void (*timer_hook)(void);

void timer_hook_set(void (*fn)(void))
{
	WRITE_ONCE(timer_hook, fn);
}

void idt_init(void)
{
	unsigned int v;

	for (v = 0; v < X86_NR_VECTORS; v++) {
		uint64_t addr = (uintptr_t)interrupt_stubs + (uint64_t)v * STUB_STRIDE;

		idt[v] = (struct idt_gate){
			.offset_lo = (uint16_t)addr,
			.selector = SEL_CODE64,
			.type_attr = IDT_GATE_P | IDT_GATE_INTERRUPT,
			.offset_mid = (uint16_t)(addr >> 16),
			.offset_hi = (uint32_t)(addr >> 32),
		};
	}
}

void idt_load(void)
{
	struct idt_ptr p = { .limit = sizeof(idt) - 1, .base = (uintptr_t)idt };

	__asm__ __volatile__("lidt %0" ::"m"(p));
}

/* Interrupt gates run handlers with interrupts off: no nesting. */
void interrupt_dispatch(struct trap_frame *f)
{
	unsigned int vector = f->vector & 0xff;
	struct percpu *me;
	void (*hook)(void);

	/* Fatal unless a scenario took the vector over (exception_hook.c). */
	if (vector < X86_NR_EXCEPTIONS && !exception_hook_run(f))
		fault_report(f);
	if (vector < X86_NR_EXCEPTIONS)
		return;

	/* For the race detector's port: it keeps interrupt context apart. */
	me = this_cpu();
	me->irq_depth++;
	csan_csanos_irq_enter(me);
	switch (vector) {
	case TIMER_VECTOR:
		/* Only this CPU writes its count; others read it. */
		WRITE_ONCE(me->ticks, me->ticks + 1);
		hook = READ_ONCE(timer_hook);
		if (hook)
			hook();
		lapic_eoi();
		break;
	case WAKE_VECTOR:
		/* The wake-up is the point; the mailbox is read by the idle loop. */
		lapic_eoi();
		break;
	case SPURIOUS_VECTOR:
		/* A spurious interrupt is not in service: no EOI (SDM 11.9). */
		break;
	default:
		panic("unexpected interrupt vector %u (0x%x) at rip 0x%lx", vector, vector,
		      (unsigned long)f->rip);
	}
	csan_csanos_irq_exit(me);
	me->irq_depth--;
}
