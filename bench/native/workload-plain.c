/* workload-plain.c: the benchmark workloads, uninstrumented. */
#define WORKLOAD_NAME plain
#include "workloads.h"
