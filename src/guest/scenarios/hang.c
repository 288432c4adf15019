/* hang.c: never finish, for the VMM's --timeout. */
#include "scenario.h"
#include "tsc.h"

/*
 * Each whole second of the guest's own clock (the TSC) is said on the
 * console, so a test can hold how long --timeout let the guest run
 * against a clock that is not the VMM's (tests/vm/hang-timeout.sh).
 */
static int hang_run(void)
{
	uint64_t next_s = 1;

	printk("hang: spinning forever with interrupts on\n");
	for (;;) {
		if (uptime_us() >= next_s * 1000000) {
			printk("hang: %lu s of guest time\n", (unsigned long)next_s);
			next_s++;
		}
		cpu_relax();
	}
	return 1;
}

CSAN_SCENARIO("hang", "test: spin forever (interrupts on), saying each second of guest time, until the VMM's timeout",
	      hang_run, CSAN_SCENARIO_TEST_ONLY);
