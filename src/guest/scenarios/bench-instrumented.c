/* bench-instrumented.c: the benchmark workload built with -fsanitize=thread. */
#include "bench-workload.h"

CSAN_SCENARIO("bench-instrumented",
	      "benchmark: a race-free kernel-like workload, instrumented",
	      bench_run, CSAN_SCENARIO_TEST_ONLY);
