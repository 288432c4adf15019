/* bench-tsan.c: bench-native's peer: the same workloads under gcc's ThreadSanitizer. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "workloads.h"

/*
 * ThreadSanitizer needs the whole program built and linked with
 * -fsanitize=thread, and libtsan defines the same __tsan_* functions as
 * the csan runtime, so the peer is a program of its own.  bench-native
 * starts it once and drives it through its stdin and stdout (peer.c), so
 * its timed runs alternate with bench-native's own in every round, on
 * the same machine state:
 *
 *   request: "WORKLOAD ITERATIONS THREADS\n"
 *   answer:  "WALL_NS CPU_NS\n" (wall-clock time of the run, and the
 *            threads' CPU time summed), or "error: WHY\n"
 *
 * End of input ends it; libtsan then exits with status 66 if it reported
 * anything, which bench-native checks: the workloads are race-free, so a
 * report would mean the peer does not see their locks.
 */

typedef uint64_t (*workload_fn)(unsigned int cpu, unsigned int iterations);

static const struct {
	const char *name;
	workload_fn fn;
} workloads[] = {
	{ "dense", bench_dense_tsan },
	{ "kernel-like", bench_kernel_tsan },
};

#define MAX_THREADS 64

struct thread {
	pthread_t thread;
	workload_fn fn;
	unsigned int cpu, iterations;
	uint64_t cpu_ns;
};

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *thread_main(void *p)
{
	struct thread *t = p;
	uint64_t t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);

	t->fn(t->cpu, t->iterations);
	t->cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
	return NULL;
}

/*
 * As bench-native's timed_run: the threads are created inside the timed
 * span there too, thread i as CPU i.  Returns 0, or an errno from
 * pthread_create.
 */
static int timed_run(workload_fn fn, unsigned int iterations, unsigned int nthreads,
		     uint64_t *wall_ns, uint64_t *cpu_ns)
{
	static struct thread t[MAX_THREADS];
	unsigned int i, started = 0;
	uint64_t t0 = clock_ns(CLOCK_MONOTONIC);
	int rc = 0;

	for (i = 0; i < nthreads; i++) {
		t[i] = (struct thread){ .fn = fn, .cpu = i, .iterations = iterations };
		rc = pthread_create(&t[i].thread, NULL, thread_main, &t[i]);
		if (rc)
			break;
		started++;
	}
	*cpu_ns = 0;
	for (i = 0; i < started; i++) {
		pthread_join(t[i].thread, NULL);
		*cpu_ns += t[i].cpu_ns;
	}
	*wall_ns = clock_ns(CLOCK_MONOTONIC) - t0;
	return rc;
}

static workload_fn find_workload(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(workloads) / sizeof(workloads[0]); i++)
		if (strcmp(workloads[i].name, name) == 0)
			return workloads[i].fn;
	return NULL;
}

int main(int argc, char **argv)
{
	char line[256], name[64];
	unsigned int iterations, nthreads;

	if (argc > 1) {
		fprintf(stderr, "usage: bench-native-tsan (driven by bench-native; see "
				"bench/native/bench-tsan.c)\n");
		return 2;
	}
	while (fgets(line, sizeof(line), stdin)) {
		uint64_t wall_ns, cpu_ns;
		workload_fn fn;
		int rc;

		if (sscanf(line, "%63s %u %u", name, &iterations, &nthreads) != 3) {
			printf("error: cannot parse request: %s", line);
		} else if (!(fn = find_workload(name))) {
			printf("error: no workload %s\n", name);
		} else if (nthreads < 1 || nthreads > MAX_THREADS) {
			printf("error: %u threads: want 1 to %d\n", nthreads, MAX_THREADS);
		} else if ((rc = timed_run(fn, iterations, nthreads, &wall_ns, &cpu_ns))) {
			printf("error: cannot start %u threads: %s\n", nthreads, strerror(rc));
		} else {
			printf("%llu %llu\n", (unsigned long long)wall_ns,
			       (unsigned long long)cpu_ns);
		}
		fflush(stdout);
	}
	return 0;
}
