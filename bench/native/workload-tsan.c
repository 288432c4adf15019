/* workload-tsan.c: the benchmark workloads, built for gcc's ThreadSanitizer (libtsan). */
#define WORKLOAD_NAME tsan
#include "workloads.h"
