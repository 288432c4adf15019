/* panic.c: a deliberate panic, for the VMM's panic report. */
#include "scenario.h"

/* The message the test suite looks for. */
#define PANIC_MESSAGE "panic scenario: deliberate panic, as asked"

static int panic_run(void)
{
	panic(PANIC_MESSAGE);
}

CSAN_SCENARIO("panic", "test: call panic() with a known message", panic_run,
	      CSAN_SCENARIO_TEST_ONLY);
