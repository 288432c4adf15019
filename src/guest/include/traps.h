/* traps.h: interrupt entry, the IDT, and unrecoverable faults. */
#ifndef GUEST_TRAPS_H
#define GUEST_TRAPS_H

#include <csan/abi.h>

#include "compiler.h"
#include "x86.h"

/*
 * The stack arch/vectors.S builds: general registers pushed by the common
 * entry (r15 lowest), then the stub's vector and error code, then what the
 * CPU pushed.
 */
struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error_code;
	uint64_t rip, cs, rflags, rsp, ss;
};
_Static_assert(offsetof(struct trap_frame, vector) == 15 * 8, "vectors.S pushes 15 registers");
_Static_assert(offsetof(struct trap_frame, rip) == 17 * 8, "vectors.S frame layout");

/* idt_init - fill the IDT (once, on the boot CPU). */
void idt_init(void);

/* idt_load - load the IDT on this CPU. */
void idt_load(void);

/*
 * timer_hook_set - have every CPU's timer interrupt call @fn (after
 * counting the tick, with interrupts off, irq_depth raised), or nothing
 * for NULL.  For scenarios that race task code against an interrupt
 * handler; @fn may be instrumented.  A CPU in the middle of a tick may
 * still call the previous hook once.
 */
void timer_hook_set(void (*fn)(void));

/* interrupt_dispatch - called by arch/vectors.S for every vector. */
void interrupt_dispatch(struct trap_frame *f);

/* fault_report - report an exception and end the run. */
__noreturn void fault_report(const struct trap_frame *f);

/*
 * fault_send - the common tail of faults and panics: tell csan-vmm, or
 * print on the UART and exit with GUEST_EXIT_FAULT on a plain PC.
 * @message may be NULL for an exception.
 */
__noreturn void fault_send(uint32_t vector, uint64_t error_code, const struct csan_regs *regs,
			   const char *message, size_t message_len);

/* exception_name - "#PF" for 14, and so on; "#??" for unknown. */
const char *exception_name(unsigned int vector);

#endif /* GUEST_TRAPS_H */
