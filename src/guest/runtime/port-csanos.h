/* port-csanos.h: the fast-path hooks of the port to the bundled kernel. */
#ifndef CSAN_RUNTIME_PORT_CSANOS_H
#define CSAN_RUNTIME_PORT_CSANOS_H

#include <stdbool.h>
#include <stddef.h>

#include "percpu.h"
#include "x86.h"

/*
 * One GS-relative load each: the fast path runs on every instrumented
 * access, and under an instruction emulator every instruction counts.
 * GS points at this CPU's struct percpu from percpu_setup() on, which is
 * before any CPU runs scenario code.
 */
static inline unsigned int csan_port_cpu(void)
{
	unsigned int cpu;

	__asm__("movl %%gs:%c1, %0" : "=r"(cpu) : "i"(offsetof(struct percpu, cpu)));
	return cpu;
}

static inline bool csan_port_in_interrupt(void)
{
	unsigned int depth;

	__asm__ __volatile__("movl %%gs:%c1, %0"
			     : "=r"(depth)
			     : "i"(offsetof(struct percpu, irq_depth)));
	return depth != 0;
}

static inline void csan_port_relax(void)
{
	__asm__ __volatile__("pause" ::: "memory");
}

#define CSAN_PORT_STACK_SIZE STACK_SIZE

#endif /* CSAN_RUNTIME_PORT_CSANOS_H */
