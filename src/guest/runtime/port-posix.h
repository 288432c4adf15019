/* port-posix.h: the fast-path hooks of the runtime's port to Linux user space. */
#ifndef CSAN_RUNTIME_PORT_POSIX_H
#define CSAN_RUNTIME_PORT_POSIX_H

/*
 * The native port (docs/porting.md's worked example): each thread that
 * runs instrumented code is a "CPU", given its index by
 * csan_posix_run_on_cpu(); an "interrupt" is a signal handler that says
 * so with csan_posix_irq_enter()/exit().  Both are thread-locals in the
 * local-exec model, one %fs-relative load each, which is what the
 * bundled kernel's %gs-relative per-CPU loads cost: the runtime lives in
 * the executable, never in a shared library.
 */
#include <stdbool.h>

extern __thread unsigned int csan_posix_cpu_id __attribute__((tls_model("local-exec")));
extern __thread unsigned int csan_posix_irq_depth __attribute__((tls_model("local-exec")));

/* This thread's CPU entry in the runtime's table (CPU 0's until set). */
struct csan_cpu;
extern __thread struct csan_cpu *csan_posix_cpu_state __attribute__((tls_model("local-exec")));
#define CSAN_PORT_CPU_STATE 1
static inline struct csan_cpu *csan_port_cpu_state(void)
{
	return csan_posix_cpu_state;
}

/* This thread's current context (task, or interrupt while a handler runs). */
struct csan_ctx;
extern __thread struct csan_ctx *csan_posix_ctx __attribute__((tls_model("local-exec")));
#define CSAN_PORT_CTX 1
static inline struct csan_ctx *csan_port_ctx(void)
{
	return csan_posix_ctx;
}

static inline unsigned int csan_port_cpu(void)
{
	return csan_posix_cpu_id;
}

static inline bool csan_port_in_interrupt(void)
{
	return csan_posix_irq_depth != 0;
}

static inline void csan_port_relax(void)
{
	__builtin_ia32_pause();
}

/* glibc's default thread stack (ulimit -s); a walk never goes further. */
#define CSAN_PORT_STACK_SIZE (8ul << 20)

#endif /* CSAN_RUNTIME_PORT_POSIX_H */
