/* bench-plain.c: the benchmark workload built without instrumentation. */
#include "../bench-workload.h"

CSAN_SCENARIO("bench-plain", "benchmark: the same workload, not instrumented", bench_run,
	      CSAN_SCENARIO_TEST_ONLY);
