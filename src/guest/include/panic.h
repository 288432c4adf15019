/* panic.h: stopping the run from software. */
#ifndef GUEST_PANIC_H
#define GUEST_PANIC_H

#include "compiler.h"

/*
 * panic - the guest cannot go on.  Under csan-vmm: CSAN_HC_FAULT with
 * CSAN_FAULT_PANIC, the message and the caller's registers (so the host
 * unwinds from the function that panicked).  On a plain PC: the message
 * and a backtrace on the UART, then exit status GUEST_EXIT_FAULT.
 */
__noreturn void panic(const char *fmt, ...) __printf(1, 2);

#endif /* GUEST_PANIC_H */
