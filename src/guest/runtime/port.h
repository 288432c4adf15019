/* port.h: what the runtime needs from the kernel it runs in (the port). */
#ifndef CSAN_RUNTIME_PORT_H
#define CSAN_RUNTIME_PORT_H

/*
 * The runtime is kernel-neutral C for x86-64 with frame pointers; all it
 * knows of its kernel is this interface.  A port is two files: a header
 * with the two hooks the fast path calls on every access (so they must be
 * inline, and cheap), named by CSAN_PORT_HEADER (default: the bundled
 * kernel's "port-csanos.h"), and a C file with the rest.  docs/porting.md
 * says how to write one.
 *
 * The port header must define, before any instrumented code runs:
 *
 *   static inline unsigned int csan_port_cpu(void);
 *       The calling CPU's index, 0 .. CSAN_MAX_CPUS - 1.
 *   static inline bool csan_port_in_interrupt(void);
 *       True in an interrupt or exception handler, false in task context.
 *       The runtime keeps separate state for each, like KCSAN.
 *   static inline void csan_port_relax(void);
 *       A spin-wait hint.
 *   CSAN_PORT_STACK_SIZE
 *       The size of a kernel stack: stack walks never go further.
 *
 * and may define, to make the fast path shorter (both bundled ports do;
 * csan_check_port() tests them):
 *
 *   CSAN_PORT_CPU_STATE, static inline struct csan_cpu *csan_port_cpu_state(void);
 *       This CPU's entry of csan_cpus[], without the index arithmetic.
 *   CSAN_PORT_CTX, static inline struct csan_ctx *csan_port_ctx(void);
 *       The context in force (&entry->irq in an interrupt handler, else
 *       &entry->task), without testing csan_port_in_interrupt().
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <csan/abi.h>

#ifdef CSAN_PORT_HEADER
#include CSAN_PORT_HEADER
#else
#include "port-csanos.h"
#endif

/*
 * csan_port_irq_save - disable interrupts on this CPU and return what
 * csan_port_irq_restore() needs to put them back as they were.  The
 * watcher runs with interrupts off (unless csan.interrupt_watcher=1) so
 * that an interrupt on its own CPU cannot race with it and be reported.
 */
unsigned long csan_port_irq_save(void);
void csan_port_irq_restore(unsigned long flags);

/* csan_port_udelay - busy-wait at least @us microseconds (no sleeping). */
void csan_port_udelay(unsigned int us);

/* csan_port_time_us - a monotonic clock in microseconds, for timeouts. */
uint64_t csan_port_time_us(void);

/* csan_port_random - 32 unpredictable bits, to seed per-CPU generators. */
uint32_t csan_port_random(void);

/*
 * csan_port_task_id - the current task's number, for "by task N" in
 * reports (only asked in task context).
 */
uint32_t csan_port_task_id(void);

/*
 * csan_port_task_id_on - the task CPU @cpu runs at this moment, or 0 if
 * the port cannot tell; for a side a debug register caught on @cpu.
 */
uint32_t csan_port_task_id_on(unsigned int cpu);

/*
 * csan_port_report - the report sink: deliver @r, a complete record
 * (include/csan/abi.h).  Under csan-vmm: hypercall CSAN_HC_REPORT; else
 * print it as best the kernel can.  @r is 8-byte aligned, identity
 * mapped and stays untouched until the call returns.  May be called with
 * interrupts off, from any context.
 */
void csan_port_report(const struct csan_hc_report *r);

/*
 * csan_port_attach - give the host the control block @c (hypercall
 * CSAN_HC_ATTACH) where there is such a host.  Returns true when the host
 * took it; false otherwise (the runtime then works from its own knobs).
 */
bool csan_port_attach(struct csan_control *c);

/*
 * csan_port_hw_arm - ask the host to back the watch of [@addr, @addr +
 * *@size) by a watcher doing a @type access (CSAN_ACCESS_*) with debug
 * registers on every CPU (CSAN_HC_HW_ARM); *@size is at most
 * CSAN_HW_MAX_SIZE.  Returns an enum csan_hw_status, with the ticket in
 * *@ticket and the bytes the registers cover from @addr in *@size when
 * CSAN_HW_ARMED.  Where no host does this, return CSAN_HW_OFF.
 */
uint32_t csan_port_hw_arm(uintptr_t addr, size_t *size, int type, uint32_t *ticket);

/*
 * csan_port_hw_disarm - end the hardware watch @ticket and learn what the
 * debug registers caught meanwhile (CSAN_HC_HW_DISARM) into @out.
 */
void csan_port_hw_disarm(uint32_t ticket, struct csan_hc_hw_disarm *out);

/* csan_port_printf - console output for the runtime's own messages. */
void csan_port_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* CSAN_RUNTIME_PORT_H */
