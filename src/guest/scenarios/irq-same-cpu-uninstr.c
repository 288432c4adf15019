/* irq-same-cpu-uninstr.c: zoo: as irq-same-cpu, but the handler's access is uninstrumented. */
#include "csan.h"
#include "scenario.h"
#include "traps.h"
#include "uninstr/halves.h"
#include "zoo.h"

/*
 * Expected (../shared/ZOO.md): in soft mode nothing, or a single-stack
 * unknown-origin report: the handler (uninstr/irq-same-cpu-uninstr.c)
 * never checks for watchpoints.  By default the task's watch runs with
 * interrupts off and sees nothing; with csan.interrupt_watcher=1 the
 * handler can change the value during the watch, which the watcher
 * reports as a race at unknown origin.  In hw mode the debug registers
 * catch the handler's write: "by interrupt on cpu N", both stacks, the
 * handler named.
 */

struct irq_slot irq_same_cpu_uninstr_slots[CSAN_MAX_CPUS];

/* Task context, interrupts on: a plain read (the watched access) and write. */
static __noinline uint64_t irq_same_cpu_uninstr_task_update(unsigned int cpu)
{
	return ++irq_same_cpu_uninstr_slots[cpu].val;
}

static uint64_t irq_same_cpu_uninstr_step(unsigned int cpu, uint64_t i)
{
	return irq_same_cpu_uninstr_task_update(cpu);
}

static void irq_same_cpu_uninstr_setup(void)
{
	timer_hook_set(irq_same_cpu_uninstr_handler);
}

static bool irq_same_cpu_uninstr_finish(uint64_t iterations)
{
	timer_hook_set(NULL);
	csan_result_add("ticks_cpu0=%lu", (unsigned long)csan_cpu_ticks(0));
	return true;
}

static const struct zoo_row irq_same_cpu_uninstr_row = {
	.step = irq_same_cpu_uninstr_step,
	.setup = irq_same_cpu_uninstr_setup,
	.finish = irq_same_cpu_uninstr_finish,
	.min_cpus = 1,
	.budget_ms = 5000, /* silence is a pass in soft mode: it may run it all */
	.expect = { .soft = ZOO_AT_MOST_UNKNOWN_ORIGIN, .hw = ZOO_DATA_RACE },
	/*
	 * hw mode: a write landing after the soft watch starts but before the
	 * host has armed the debug register shows as a value change only.
	 */
	.also_kinds = ZOO_KIND(CSAN_REPORT_UNKNOWN_ORIGIN),
};

ZOO_SCENARIO("irq-same-cpu-uninstr",
	     "zoo: as irq-same-cpu, but the handler's access is uninstrumented (soft: at most an "
	     "unknown-origin report)",
	     irq_same_cpu_uninstr_row);
