/* irq-same-cpu.c: zoo: task code and this CPU's timer interrupt handler update one variable. */
#include "csan.h"
#include "scenario.h"
#include "traps.h"
#include "zoo.h"

/*
 * Expected (../shared/ZOO.md): in soft mode no report by default, since
 * the task's watch runs with interrupts off and the handler cannot come
 * in during it; with csan.interrupt_watcher=1 the watch runs with
 * interrupts on, the timer interrupt's instrumented write runs into the
 * task's watchpoint, and the report is "data-race in irq_same_cpu_handler
 * / irq_same_cpu_task_update" with one side "by interrupt on cpu N".  In
 * hw mode that report comes either way.
 *
 * Each CPU has its own slot, updated by its task code and by its own
 * timer interrupt only, so every race here is a same-CPU one.
 */

struct irq_same_cpu_slot {
	uint64_t val;
} __aligned(64);

static struct irq_same_cpu_slot irq_same_cpu_slots[CSAN_MAX_CPUS];

/* Task context, interrupts on: a plain read (the watched access) and write. */
static __noinline uint64_t irq_same_cpu_task_update(unsigned int cpu)
{
	return ++irq_same_cpu_slots[cpu].val;
}

/* The timer hook: instrumented, in interrupt context. */
static __noinline void irq_same_cpu_handler(void)
{
	irq_same_cpu_slots[this_cpu_id()].val += 1000;
}

static uint64_t irq_same_cpu_step(unsigned int cpu, uint64_t i)
{
	return irq_same_cpu_task_update(cpu);
}

static void irq_same_cpu_setup(void)
{
	timer_hook_set(irq_same_cpu_handler);
}

static bool irq_same_cpu_finish(uint64_t iterations)
{
	timer_hook_set(NULL);
	csan_result_add("ticks_cpu0=%lu", (unsigned long)csan_cpu_ticks(0));
	return true;
}

static const struct zoo_row irq_same_cpu_row = {
	.step = irq_same_cpu_step,
	.setup = irq_same_cpu_setup,
	.finish = irq_same_cpu_finish,
	.min_cpus = 1,
	.budget_ms = 5000, /* by default race-free: runs it all */
	.expect = { .soft = ZOO_NONE, .hw = ZOO_DATA_RACE },
	.when = { { "interrupt_watcher", 1 } },
	.when_expect = { .soft = ZOO_DATA_RACE, .hw = ZOO_DATA_RACE },
};

ZOO_SCENARIO("irq-same-cpu",
	     "zoo: task code and the same CPU's timer interrupt update one variable (soft: a "
	     "report only with csan.interrupt_watcher=1)",
	     irq_same_cpu_row);
