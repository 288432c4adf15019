/* exception_hook.c: scenario-installed exception handlers (vectors 0-31). */
#include "compiler.h"
#include "exception_hook.h"
#include "x86.h"

/*
 * Every exception is fatal unless a scenario asked otherwise: the kernel
 * under test is buggy by definition, and an exception nobody expected is
 * the bug to report.  A scenario that arms debug registers itself expects
 * its #DBs, and only it knows what they mean.
 */
static exception_hook_fn hooks[X86_NR_EXCEPTIONS];

void exception_hook_set(unsigned int vector, exception_hook_fn fn)
{
	if (vector < X86_NR_EXCEPTIONS)
		WRITE_ONCE(hooks[vector], fn);
}

bool exception_hook_run(struct trap_frame *f)
{
	unsigned int vector = f->vector & 0xff;
	exception_hook_fn fn;

	if (vector >= X86_NR_EXCEPTIONS)
		return false;
	fn = READ_ONCE(hooks[vector]);
	return fn && fn(f);
}
