/* exception_hook.h: let a scenario handle one exception vector itself. */
#ifndef GUEST_EXCEPTION_HOOK_H
#define GUEST_EXCEPTION_HOOK_H

#include <stdbool.h>

#include "traps.h"

/*
 * An exception handler: returns true when it dealt with the exception and
 * the interrupted code may go on, false to let the kernel report it as
 * fatal as usual.  Runs with interrupts off, on the faulting CPU.
 */
typedef bool (*exception_hook_fn)(struct trap_frame *f);

/*
 * exception_hook_set - handle exception @vector (0-31) with @fn from now
 * on, on every CPU; NULL restores the default (every exception is fatal).
 * For hostile-guest scenarios that own a piece of the CPU, such as the
 * debug registers and #DB.
 */
void exception_hook_set(unsigned int vector, exception_hook_fn fn);

/*
 * exception_hook_run - run @f's vector's handler, if one is set.  Returns
 * true when the handler dealt with the exception.
 */
bool exception_hook_run(struct trap_frame *f);

#endif /* GUEST_EXCEPTION_HOOK_H */
