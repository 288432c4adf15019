/* workload-instr.c: the benchmark workloads, built with -fsanitize=thread. */
#define WORKLOAD_NAME instr
#include "workloads.h"
