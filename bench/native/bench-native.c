/* bench-native.c: what the runtime costs on real hardware, beside ThreadSanitizer. */
#include <err.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "guest/include/csan.h"
#include "guest/runtime/internal.h"
#include "native/native.h"
#include "peer.h"
#include "workloads.h"

/*
 * Each workload is built twice in this one binary (workload-plain.c,
 * workload-instr.c), and the instrumented one runs with two knob sets:
 * KCSAN's defaults, and sampling off (no watchpoint is ever set up: the
 * fast path alone, KCSAN's "no watchpoints" figure).  With --tsan=PATH
 * a fourth variant is the peer: the same workloads built for gcc's
 * ThreadSanitizer, a program of its own (bench-tsan.c) that runs on
 * request.  Rounds run the variants back to back, so a noisy neighbour
 * hits them all alike, and the ratio of each round is taken before the
 * median.
 *
 * --callgrind=plain|fast|setup runs one variant once, single-threaded,
 * for bench/native.sh to count instructions under valgrind
 * --tool=callgrind: uninstrumented, sampling off, or a watchpoint every
 * few accesses.
 */

typedef uint64_t (*workload_fn)(unsigned int cpu, unsigned int iterations);

struct workload {
	const char *name;
	workload_fn plain, instr;
	unsigned int iterations;
};

static struct workload workloads[] = {
	{ "dense", bench_dense_plain, bench_dense_instr, 4000000 },
	{ "kernel-like", bench_kernel_plain, bench_kernel_instr, 1000000 },
};

struct run {
	workload_fn fn;
	unsigned int iterations;
};

/* CPU time of the last run, all threads together (ns): what a busy neighbour cannot inflate much.
 */
static uint64_t run_cpu_ns;

static uint64_t thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void run_cpu(void *arg, unsigned cpu)
{
	const struct run *r = arg;
	uint64_t t0 = thread_ns();

	r->fn(cpu, r->iterations);
	__atomic_fetch_add(&run_cpu_ns, thread_ns() - t0, __ATOMIC_RELAXED);
}

/*
 * Sampling on (KCSAN's skip_watch) or off (a skip that never runs out).
 * Only between runs: the CPUs' skip counters are theirs while they run.
 */
static void set_sampling(bool on, uint32_t skip_watch)
{
	unsigned int cpu;

	csan_control.skip_watch = skip_watch;
	for (cpu = 0; cpu < CSAN_MAX_CPUS; cpu++)
		csan_cpus[cpu].skip =
			on ? (long)(skip_watch - csan_random(&csan_cpus[cpu], skip_watch))
			   : LONG_MAX;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double timed_run(workload_fn fn, unsigned int iterations, unsigned int ncpus)
{
	struct run r = { fn, iterations };
	double t0;

	run_cpu_ns = 0;
	t0 = now_s();
	int rc = native_run_cpus(ncpus, run_cpu, &r);

	if (rc < 0)
		errx(1, "cannot start %u CPU threads: %s", ncpus, strerror(-rc));
	return now_s() - t0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#define MAX_ROUNDS 64

/* A timed run of the ThreadSanitizer peer; its failures end the benchmark. */
static double peer_timed_run(struct peer *tsan, const struct workload *w, unsigned int iterations,
			     unsigned int ncpus, uint64_t *cpu_ns)
{
	char why[512];
	double t;

	if (peer_run(tsan, w->name, iterations, ncpus, &t, cpu_ns, why, sizeof(why)) < 0)
		errx(1, "the ThreadSanitizer peer failed: %s", why);
	return t;
}

/* @tsan: the peer, or NULL when it is not measured. */
static void bench_wall(const struct workload *w, unsigned int rounds, unsigned int ncpus,
		       struct peer *tsan)
{
	double def[MAX_ROUNDS], nos[MAX_ROUNDS], tsn[MAX_ROUNDS], plain_s[MAX_ROUNDS];
	double cdef[MAX_ROUNDS], cnos[MAX_ROUNDS], ctsn[MAX_ROUNDS];
	double min_p = 1e9, min_d = 1e9, min_n = 1e9, min_t = 1e9;
	const uint32_t skip = csan_control.skip_watch;
	char tsan_fig[3][32];
	uint64_t tsan_cpu;
	unsigned int r;

	/* One untimed run of each, so page faults and frequency ramps are behind us. */
	timed_run(w->plain, w->iterations / 10, ncpus);
	timed_run(w->instr, w->iterations / 10, ncpus);
	if (tsan)
		peer_timed_run(tsan, w, w->iterations / 10, ncpus, &tsan_cpu);
	for (r = 0; r < rounds; r++) {
		double tp, td, tn, tt = 0, cp, cd;

		tp = timed_run(w->plain, w->iterations, ncpus);
		cp = (double)run_cpu_ns;
		set_sampling(true, skip);
		td = timed_run(w->instr, w->iterations, ncpus);
		cd = (double)run_cpu_ns;
		set_sampling(false, skip);
		tn = timed_run(w->instr, w->iterations, ncpus);
		plain_s[r] = tp;
		def[r] = td / tp;
		nos[r] = tn / tp;
		cdef[r] = cd / cp;
		cnos[r] = (double)run_cpu_ns / cp;
		min_p = tp < min_p ? tp : min_p;
		min_d = td < min_d ? td : min_d;
		min_n = tn < min_n ? tn : min_n;
		if (tsan) {
			tt = peer_timed_run(tsan, w, w->iterations, ncpus, &tsan_cpu);
			tsn[r] = tt / tp;
			ctsn[r] = (double)tsan_cpu / cp;
			min_t = tt < min_t ? tt : min_t;
		}
		printf("%s round %u: plain %.1f ms, default %.1f ms (%.2fx), nosample %.1f ms "
		       "(%.2fx)",
		       w->name, r + 1, tp * 1e3, td * 1e3, def[r], tn * 1e3, nos[r]);
		if (tsan)
			printf(", tsan %.1f ms (%.2fx)", tt * 1e3, tsn[r]);
		printf("\n");
		fflush(stdout);
	}
	set_sampling(true, skip);
	printf("%s: %u threads, %u iterations each, median plain %.1f ms, %u rounds\n", w->name,
	       ncpus, w->iterations, median(plain_s, rounds) * 1e3, rounds);
	/* Without the peer its figures read n/a, never a number that was not measured. */
	if (tsan) {
		snprintf(tsan_fig[0], sizeof(tsan_fig[0]), "%.2fx", min_t / min_p);
		snprintf(tsan_fig[1], sizeof(tsan_fig[1]), "%.2fx", median(ctsn, rounds));
		snprintf(tsan_fig[2], sizeof(tsan_fig[2]), "%.2fx", median(tsn, rounds));
	} else {
		for (r = 0; r < 3; r++)
			snprintf(tsan_fig[r], sizeof(tsan_fig[r]), "n/a");
	}
	/*
	 * Cross-checks for a busy machine, where others' work lands on some
	 * runs and not on others: the fastest run of each variant, and the
	 * threads' own CPU time.  The wall-clock median is the figure.
	 */
	printf("%s: fastest runs default=%.2fx nosample=%.2fx tsan=%s; thread CPU time "
	       "default=%.2fx nosample=%.2fx tsan=%s (medians)\n",
	       w->name, min_d / min_p, min_n / min_p, tsan_fig[0], median(cdef, rounds),
	       median(cnos, rounds), tsan_fig[1]);
	printf("native slowdown workload=%s default=%.2fx nosample=%.2fx tsan=%s\n", w->name,
	       median(def, rounds), median(nos, rounds), tsan_fig[2]);
	fflush(stdout);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: bench-native [--rounds=N] [--threads=N] [--workload=dense|kernel-like]\n"
		   "                    [--iterations=N] [--tsan=PATH] "
		   "[--callgrind=plain|fast|setup]\n"
		   "Wall-clock slowdown of the guest runtime built natively (see "
		   "docs/BENCHMARKS.md).\n"
		   "--tsan=PATH runs the same workloads under ThreadSanitizer in PATH\n"
		   "(bench-native-tsan) in every round as well; without it, tsan=n/a.\n"
		   "--callgrind runs one instrumented run on one thread for bench/native.sh.\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "rounds", required_argument, NULL, 'r' },
		{ "threads", required_argument, NULL, 't' },
		{ "workload", required_argument, NULL, 'w' },
		{ "iterations", required_argument, NULL, 'i' },
		{ "callgrind", required_argument, NULL, 'c' },
		{ "tsan", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int rounds = 5, ncpus = (unsigned int)sysconf(_SC_NPROCESSORS_ONLN), iters = 0;
	const char *only = NULL, *callgrind = NULL, *tsan_path = NULL;
	struct native_opts no = { 0 };
	struct peer tsan;
	char why[512];
	unsigned int i;
	int c, rc;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'r': rounds = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 't': ncpus = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'w': only = optarg; break;
		case 'i': iters = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'c': callgrind = optarg; break;
		case 's': tsan_path = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (rounds < 1 || rounds > MAX_ROUNDS)
		errx(2, "--rounds=%u: want 1 to %d", rounds, MAX_ROUNDS);
	if (ncpus < 1 || ncpus > CSAN_MAX_CPUS)
		errx(2, "--threads=%u: want 1 to %d", ncpus, CSAN_MAX_CPUS);
	if (tsan_path && callgrind)
		errx(2, "--tsan and --callgrind: callgrind counts the csan runtime only");
	if (tsan_path && peer_start(&tsan, tsan_path, why, sizeof(why)) < 0)
		errx(1, "cannot start the ThreadSanitizer peer: %s", why);
	rc = native_open(&no, why, sizeof(why));
	if (rc < 0)
		errx(1, "cannot symbolize reports: %s", why);
	/* KCSAN's defaults (knobs.c), or the ones bench/native.sh asks for under callgrind. */
	csan_init(getenv("CSAN_NATIVE_KNOBS"));
	for (i = 0; i < sizeof(workloads) / sizeof(workloads[0]); i++) {
		struct workload *w = &workloads[i];

		if (only && strcmp(only, w->name) != 0)
			continue;
		if (iters)
			w->iterations = iters;
		if (!callgrind) {
			bench_wall(w, rounds, ncpus, tsan_path ? &tsan : NULL);
			continue;
		}
		if (strcmp(callgrind, "plain") == 0) {
			timed_run(w->plain, w->iterations, 1);
			continue;
		}
		if (strcmp(callgrind, "fast") != 0 && strcmp(callgrind, "setup") != 0)
			errx(2, "--callgrind=%s: want plain, fast or setup", callgrind);
		set_sampling(strcmp(callgrind, "setup") == 0, csan_control.skip_watch);
		timed_run(w->instr, w->iterations, 1);
	}
	csan_counters_print();
	rc = report_log_total(native_log()) || native_bad_reports() ? 1 : 0;
	if (rc)
		fprintf(stderr,
			"bench-native: the workloads are race-free, yet there were reports\n");
	if (tsan_path && peer_stop(&tsan, why, sizeof(why)) < 0) {
		fprintf(stderr, "bench-native: the ThreadSanitizer peer: %s\n", why);
		rc = 1;
	}
	native_close(true);
	return rc;
}
