/* hang.c: never finish, for the VMM's --timeout. */
#include "scenario.h"

static int hang_run(void)
{
	printk("hang: spinning forever with interrupts on\n");
	for (;;)
		cpu_relax();
	return 1;
}

CSAN_SCENARIO("hang", "test: spin forever (interrupts on) until the VMM's timeout", hang_run,
	      CSAN_SCENARIO_TEST_ONLY);
