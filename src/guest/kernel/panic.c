/* panic.c: panic(): stop the run with a message and the caller's registers. */
#include <stdarg.h>

#include <csan/abi.h>

#include "cpu.h"
#include "panic.h"
#include "printk.h"
#include "traps.h"

/*
 * The registers sent are panic()'s own, taken right here: RIP inside
 * panic(), RSP and RBP of its frame.  The host unwinds from them as from
 * any fault, so the report shows panic() and then the function that
 * called it.  (Starting at the return address instead would put the
 * caller's "pc" past the end of the caller when the call to this noreturn
 * function is its last instruction.)  noinline: panic() needs its frame.
 */
__noinline __noreturn void panic(const char *fmt, ...)
{
	struct csan_regs regs = { 0 };
	char msg[256];
	va_list ap;
	int n;

	/* The flags as the caller had them, before interrupts go off. */
	__asm__ __volatile__("pushf; pop %0" : "=r"(regs.rflags));
	__asm__ __volatile__("lea 0(%%rip), %0; mov %%rsp, %1; mov %%rbp, %2"
			     : "=r"(regs.rip), "=r"(regs.rsp), "=r"(regs.rbp));
	__asm__ __volatile__("mov %%cs, %0" : "=r"(regs.cs));
	__asm__ __volatile__("mov %%ss, %0" : "=r"(regs.ss));
	irq_disable();

	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(msg) - 1)
		n = sizeof(msg) - 1;
	regs.cr2 = read_cr2();
	regs.cr3 = read_cr3();
	fault_send(CSAN_FAULT_PANIC, 0, &regs, msg, (size_t)n);
}
