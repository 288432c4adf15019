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

/*
 * This CPU's entry of csan_cpus[] and the context in force, kept in
 * struct percpu by port-csanos.c: one load each instead of the index
 * arithmetic and the interrupt test.
 */
struct csan_cpu;
struct csan_ctx;
#define CSAN_PORT_CPU_STATE 1
static inline struct csan_cpu *csan_port_cpu_state(void)
{
	struct csan_cpu *c;

	__asm__("movq %%gs:%c1, %0" : "=r"(c) : "i"(offsetof(struct percpu, race_cpu)));
	return c;
}

/* Volatile, as csan_port_in_interrupt(): an interrupt handler switches it. */
#define CSAN_PORT_CTX 1
static inline struct csan_ctx *csan_port_ctx(void)
{
	struct csan_ctx *ctx;

	__asm__ __volatile__("movq %%gs:%c1, %0"
			     : "=r"(ctx)
			     : "i"(offsetof(struct percpu, race_ctx)));
	return ctx;
}

static inline void csan_port_relax(void)
{
	__asm__ __volatile__("pause" ::: "memory");
}

#define CSAN_PORT_STACK_SIZE STACK_SIZE

#endif /* CSAN_RUNTIME_PORT_CSANOS_H */
