/* port-posix-api.h: what a program hosting the native runtime calls. */
#ifndef CSAN_RUNTIME_PORT_POSIX_API_H
#define CSAN_RUNTIME_PORT_POSIX_API_H

#include <csan/abi.h>

/*
 * csan_posix_set_report_sink - deliver every report record to @sink
 * (src/native/native.c hands it to the src/watch/ report log); NULL: a
 * raw line on stderr.  Called with signals blocked, from any CPU thread.
 */
void csan_posix_set_report_sink(void (*sink)(const struct csan_hc_report *r));

/*
 * csan_posix_run_on_cpu - run @fn(@arg) on the calling thread as CPU
 * @cpu (< CSAN_MAX_CPUS; one thread per CPU at a time).  Instrumented
 * code must run inside it: the runtime's per-CPU state and report stacks
 * depend on it.
 */
void csan_posix_run_on_cpu(unsigned int cpu, void (*fn)(void *), void *arg);

/*
 * csan_posix_irq_enter, csan_posix_irq_exit - bracket a signal handler
 * that stands for an interrupt, so its accesses use the interrupt
 * context's state (and csan.udelay_interrupt), as in a kernel.
 */
void csan_posix_irq_enter(void);
void csan_posix_irq_exit(void);

#endif /* CSAN_RUNTIME_PORT_POSIX_API_H */
