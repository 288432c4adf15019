/* percpu.h: per-CPU data, reached through the GS base. */
#ifndef GUEST_PERCPU_H
#define GUEST_PERCPU_H

#include <csan/abi.h>

#include "compiler.h"

typedef void (*csan_work_fn)(void *arg);

/*
 * Work handed to a CPU (kernel/smp.c).  The poster writes fn and arg, then
 * bumps posted; the CPU runs the work and copies posted into done.
 */
struct mailbox {
	csan_work_fn fn;
	void *arg;
	uint32_t posted;
	uint32_t done;
	uint32_t poster; /* CPU index to wake when the work is done */
};

struct percpu {
	struct percpu *self; /* must stay first: this_cpu() reads %gs:0 */
	uint32_t cpu;	     /* index: 0 is the boot CPU, then MADT order */
	uint32_t apic_id;
	uint32_t online;    /* set by the CPU itself once it takes work */
	uint32_t in_fault;  /* nested-fault guard (arch/fault.c) */
	uint32_t irq_depth; /* interrupt handlers running (arch/idt.c) */
	uint64_t ticks;	    /* local APIC timer interrupts seen */
	/*
	 * The race detector's state for this CPU and the context in force
	 * (task, or interrupt while a handler runs), kept here by its port
	 * (runtime/port-csanos.c) so its fast path reaches each with one
	 * GS-relative load.  Opaque to the kernel.
	 */
	void *race_cpu;
	void *race_ctx;
	struct mailbox mbox;
} __aligned(64);

extern struct percpu percpu[CSAN_MAX_CPUS];

/*
 * The calling CPU's data.  Volatile, so the read stays after
 * percpu_setup()'s WRMSR: without it GCC -Os hoisted the read above the
 * GS base write in ap_main().
 */
static inline struct percpu *this_cpu(void)
{
	struct percpu *p;

	__asm__ __volatile__("mov %%gs:0, %0" : "=r"(p));
	return p;
}

static inline unsigned int this_cpu_id(void)
{
	return this_cpu()->cpu;
}

/* percpu_setup - point this CPU's GS base at percpu[cpu]. */
void percpu_setup(unsigned int cpu);

/*
 * The race detector's port (runtime/port-csanos.c): fill in @p's race_*
 * fields, before the CPU runs checked code; switch race_ctx around an
 * interrupt handler.
 */
void csan_csanos_cpu_setup(struct percpu *p);
void csan_csanos_irq_enter(struct percpu *p);
void csan_csanos_irq_exit(struct percpu *p);

#endif /* GUEST_PERCPU_H */
