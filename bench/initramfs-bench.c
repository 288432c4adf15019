/* initramfs-bench.c: how long building --run's initramfs takes for a 5 MB workload. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "vmm/workload/workload.h"

/*
 * Usage: initramfs-bench INIT [MB [ROUNDS]]
 *
 * Builds a workload of MB megabytes (default 5) in a temporary directory:
 * one data file of MB - 1 MB, a tree of 256 files of 4 KiB, and a copy of
 * a dynamically linked host program (/usr/bin/env, whose libc and loader
 * come along); then times workload_initrd_build with --run and the three
 * --add's, ROUNDS times (default 11), with INIT (the built csan-vmm-init)
 * and Debian's busybox.  This is the whole of what --run adds before the
 * first KVM_RUN: the archive is built in memory and handed to the boot as
 * it is.  Prints the median and the extremes, and the archive's size.
 */

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int write_bytes(const char *path, size_t n, unsigned seed)
{
	FILE *f = fopen(path, "w");
	size_t i;

	if (!f)
		return -1;
	/* Not all zeros, so nothing along the way can shortcut them. */
	for (i = 0; i < n; i++)
		fputc((int)((i * 2654435761u + seed) >> 13) & 0xff, f);
	return fclose(f);
}

static int make_workload(const char *dir, unsigned mb)
{
	char p[PATH_MAX];
	unsigned i;

	snprintf(p, sizeof(p), "%s/data.bin", dir);
	if (write_bytes(p, ((size_t)mb - 1) << 20, 1))
		return -1;
	snprintf(p, sizeof(p), "%s/tree", dir);
	if (mkdir(p, 0755))
		return -1;
	for (i = 0; i < 256; i++) {
		snprintf(p, sizeof(p), "%s/tree/f%03u", dir, i);
		if (write_bytes(p, 4096, i))
			return -1;
	}
	snprintf(p, sizeof(p), "cp /usr/bin/env '%s/env'", dir);
	return system(p) ? -1 : 0;
}

int main(int argc, char **argv)
{
	unsigned mb = argc > 2 ? (unsigned)atoi(argv[2]) : 5;
	unsigned rounds = argc > 3 ? (unsigned)atoi(argv[3]) : 11, i;
	char dir[] = "/tmp/initramfs-bench.XXXXXX";
	char a0[PATH_MAX], a1[PATH_MAX], a2[PATH_MAX], why[1024], rm[PATH_MAX + 16];
	const char *adds[3] = { a0, a1, a2 };
	struct workload_spec w = { .run = "./env true", .adds = adds, .nadds = 3 };
	struct workload_files f = { .busybox = WORKLOAD_BUSYBOX };
	double *ms;
	size_t len = 0;
	uint8_t *data;
	int status = 0;

	if (argc < 2 || mb < 2 || !rounds) {
		fprintf(stderr, "usage: initramfs-bench INIT [MB (2 or more) [ROUNDS]]\n");
		return 2;
	}
	f.init = argv[1];
	if (access(f.init, R_OK) || access(WORKLOAD_BUSYBOX, R_OK)) {
		printf("initramfs-bench: needs %s and %s (make; apt-get install busybox-static)\n",
		       f.init, WORKLOAD_BUSYBOX);
		return 77;
	}
	ms = calloc(rounds, sizeof(*ms));
	if (!ms || !mkdtemp(dir)) {
		perror("initramfs-bench");
		return 1;
	}
	snprintf(a0, sizeof(a0), "%s/data.bin", dir);
	snprintf(a1, sizeof(a1), "%s/tree", dir);
	snprintf(a2, sizeof(a2), "%s/env", dir);
	if (make_workload(dir, mb)) {
		perror("initramfs-bench: making the workload");
		status = 1;
		goto out;
	}
	for (i = 0; i < rounds; i++) {
		double t0 = now_ms();

		if (workload_initrd_build(&w, &f, &data, &len, why, sizeof(why))) {
			printf("initramfs-bench: %s\n", why);
			status = 1;
			goto out;
		}
		ms[i] = now_ms() - t0;
		free(data);
	}
	qsort(ms, rounds, sizeof(*ms), cmp_double);
	printf("initramfs-bench: %u MB workload (3 --add: a file, 256 small files, a dynamic "
	       "program), archive %.1f MiB\n",
	       mb, (double)len / 1048576.0);
	printf("initramfs-bench: build time median %.1f ms, min %.1f ms, max %.1f ms (%u rounds)\n",
	       ms[rounds / 2], ms[0], ms[rounds - 1], rounds);
out:
	snprintf(rm, sizeof(rm), "rm -rf '%s'", dir);
	if (system(rm))
		fprintf(stderr, "initramfs-bench: could not remove %s\n", dir);
	free(ms);
	return status;
}
