/* irq-same-cpu-uninstr.c: irq-same-cpu-uninstr's timer hook, built without instrumentation. */
#include "compiler.h"
#include "halves.h"
#include "percpu.h"

/* Runs in this CPU's timer interrupt: a plain update of the slot the task updates too. */
__noinline void irq_same_cpu_uninstr_handler(void)
{
	irq_same_cpu_uninstr_slots[this_cpu_id()].val += 1000;
}
