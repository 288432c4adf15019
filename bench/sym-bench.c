/* sym-bench.c: symbolized frames per second, warm Dwfl against eu-addr2line. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "watch/sym.h"

/*
 * Usage: sym-bench [ELF [LOOKUPS [DISTINCT]]]
 *
 * Takes DISTINCT addresses (default 20000) spread evenly over the bytes of
 * every function of ELF (default: this program), repeated up to LOOKUPS
 * lookups (default 20000), and times, on the same list in one run:
 *   - sym_lookup on a fresh Dwfl, the first pass (what a run's first
 *     reports cost: line tables and the CU indexes are built as needed),
 *   - sym_lookup with a warm Dwfl and SYM_NOCACHE (libdw's work alone),
 *   - sym_lookup with its per-address cache, on the first CACHED_SET
 *     addresses repeated (what repeated reports cost: a run's hot frames
 *     fit the cache, while 20,000 distinct addresses would only thrash it),
 *   - one eu-addr2line -f -i process reading addresses on stdin (at most
 *     ONE_PROCESS_MAX of them, spread over the list: on a vmlinux it
 *     does about 500 frames/s),
 *   - one eu-addr2line -f -i process per address, the way a user
 *     symbolizes a console report by hand, on the first addresses of the
 *     list for at most PER_ADDR_BUDGET_S seconds.
 * Frames are counted the same way on all sides: one per inline level.
 * The sample is bounded so that a 70 MB vmlinux takes as long as a small
 * guest: every 4th byte of every function would be 900,000 addresses.
 */

#define DEFAULT_LOOKUPS	  20000
#define DEFAULT_DISTINCT  20000
#define PER_ADDR_MAX	  200  /* eu-addr2line processes, at most ... */
#define PER_ADDR_BUDGET_S 20.0 /* ... or this many seconds of them */
#define ONE_PROCESS_MAX	  5000 /* addresses for the one eu-addr2line process */
#define CACHED_SET	  1024 /* distinct addresses of the cached pass */

/* CPU seconds of this process (@children: of its waited-for children). */
static double cpu_s(bool children)
{
	struct rusage ru;

	getrusage(children ? RUSAGE_CHILDREN : RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct fn {
	uint64_t start, size;
};

/* Every sized function in @path's symtab into *@out; returns the count. */
static size_t collect_functions(const char *path, struct fn **out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = NULL;
	Elf_Scn *scn = NULL;
	struct fn *v = NULL;
	size_t n = 0, cap = 0;

	elf_version(EV_CURRENT);
	if (fd >= 0)
		elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;

			if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
			    !s.st_size || s.st_shndx == SHN_UNDEF)
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 1024;
				v = realloc(v, cap * sizeof(*v));
				if (!v)
					exit(2);
			}
			v[n++] = (struct fn){ s.st_value, s.st_size };
		}
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	*out = v;
	return n;
}

/*
 * @want addresses spread evenly over the function bytes of @path (every
 * byte if there are fewer), in symbol-table order.  Returns the count.
 */
static size_t collect_addrs(const char *path, size_t want, uint64_t **out)
{
	struct fn *fns;
	size_t nf = collect_functions(path, &fns), i, n = 0;
	uint64_t total = 0, step, pos = 0, next = 0, *v;

	for (i = 0; i < nf; i++)
		total += fns[i].size;
	*out = NULL;
	if (!total || !want)
		return 0;
	/* A fixed-point step keeps the spread even when total / want is small. */
	step = (total << 8) / want;
	if (step < 256)
		step = 256;
	v = malloc(want * sizeof(*v));
	if (!v)
		exit(2);
	for (i = 0; i < nf && n < want; i++) {
		uint64_t end = pos + fns[i].size;

		while (n < want && (next >> 8) < end) {
			v[n++] = fns[i].start + ((next >> 8) - pos);
			next += step;
		}
		pos = end;
	}
	free(fns);
	*out = v;
	return n;
}

/* One pass of sym_lookup over @addrs; returns the frames found. */
static uint64_t sym_pass(struct sym *sym, const uint64_t *addrs, size_t n, unsigned flags)
{
	struct sym_frame fr[SYM_MAX_FRAMES];
	uint64_t frames = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		int got = sym_lookup(sym, addrs[i], flags, fr, SYM_MAX_FRAMES);

		frames += got > 0 ? (uint64_t)got : 0;
	}
	return frames;
}

/*
 * eu-addr2line -f -i over @addrs, one process, addresses on stdin (a file,
 * so that its output cannot block our input).  Returns the frames: output
 * lines / 2, since -f prints a function line and a file:line per frame.
 */
static long addr2line_pass(const char *elf, const uint64_t *addrs, size_t n, double *secs)
{
	FILE *in = tmpfile(), *out;
	int pfd[2], status;
	long lines = 0;
	double t0;
	pid_t pid;
	size_t i;
	char buf[65536];
	size_t got, k;

	if (!in || pipe(pfd) != 0)
		return -1;
	for (i = 0; i < n; i++)
		fprintf(in, "0x%llx\n", (unsigned long long)addrs[i]);
	fflush(in);
	rewind(in);
	t0 = now_s();
	pid = fork();
	if (pid == 0) {
		dup2(fileno(in), 0);
		dup2(pfd[1], 1);
		close(pfd[0]);
		unsetenv("DEBUGINFOD_URLS"); /* offline, as our side is */
		execlp("eu-addr2line", "eu-addr2line", "-f", "-i", "-e", elf, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	out = fdopen(pfd[0], "r");
	while (out && (got = fread(buf, 1, sizeof(buf), out)) > 0)
		for (k = 0; k < got; k++)
			lines += buf[k] == '\n';
	if (out)
		fclose(out);
	waitpid(pid, &status, 0);
	*secs = now_s() - t0;
	fclose(in);
	if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	return lines / 2;
}

/*
 * One eu-addr2line -f -i process per address of @addrs, until @max
 * addresses or @budget seconds.  Returns the frames, with the addresses
 * done in *@done and the time in *@secs; -1 if eu-addr2line did not run.
 */
static long addr2line_each(const char *elf, const uint64_t *addrs, size_t n, size_t max,
			   double budget, size_t *done, double *secs)
{
	double t0 = now_s();
	long frames = 0, got;
	size_t i;
	double t;

	/* Spread over the list, which is in symbol-table order. */
	size_t stride = n > max ? n / max : 1;

	*done = 0;
	for (i = 0; i * stride < n && i < max && now_s() - t0 < budget; i++) {
		got = addr2line_pass(elf, &addrs[i * stride], 1, &t);
		if (got < 0)
			return -1;
		frames += got;
		(*done)++;
	}
	*secs = now_s() - t0;
	return frames;
}

int main(int argc, char **argv)
{
	char self[PATH_MAX], why[512];
	const char *elf = argc > 1 ? argv[1] : NULL;
	size_t lookups = argc > 2 ? strtoul(argv[2], NULL, 0) : DEFAULT_LOOKUPS;
	size_t want = argc > 3 ? strtoul(argv[3], NULL, 0) : DEFAULT_DISTINCT;
	size_t nd, n, i, each_n = 0;
	uint64_t *distinct, *addrs, *hot, f_cold, f_nc, f_c, a2l[ONE_PROCESS_MAX];
	double t0, t_open, t_cold, t_nc, t_c, t_a2l = 0, t_each = 0, a2l_rate, each_rate;
	double c0, c_nc, c_each; /* CPU time: the same ratio on a loaded machine */
	struct sym *sym;
	long f_a2l, f_each;
	ssize_t len;

	/* Our own path, not /proc/self/exe, which eu-addr2line would read as itself. */
	if (!elf) {
		len = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (len < 0)
			return 2;
		self[len] = '\0';
		elf = self;
	}
	if (access(elf, R_OK) != 0) {
		fprintf(stderr, "sym-bench: cannot read %s: %s\n", elf, strerror(errno));
		return 2;
	}
	nd = collect_addrs(elf, want, &distinct);
	if (!nd || !lookups) {
		fprintf(stderr, "sym-bench: no functions with sizes in %s's symbol table\n", elf);
		return 2;
	}
	n = lookups > nd ? lookups : nd;
	addrs = malloc(n * sizeof(*addrs));
	hot = malloc(n * sizeof(*hot));
	if (!addrs || !hot)
		return 2;
	for (i = 0; i < n; i++)
		addrs[i] = distinct[i % nd];

	t0 = now_s();
	if (sym_open(elf, &sym, why, sizeof(why)) != 0) {
		fprintf(stderr, "sym-bench: %s\n", why);
		return 2;
	}
	t_open = now_s() - t0;
	/* The first pass warms the Dwfl: CUs, line tables, aranges, CU indexes. */
	t0 = now_s();
	f_cold = sym_pass(sym, distinct, nd, SYM_NOCACHE);
	t_cold = now_s() - t0;
	t0 = now_s();
	c0 = cpu_s(false);
	f_nc = sym_pass(sym, addrs, n, SYM_NOCACHE);
	c_nc = cpu_s(false) - c0;
	t_nc = now_s() - t0;
	for (i = 0; i < n; i++)
		hot[i] = distinct[i % (nd < CACHED_SET ? nd : CACHED_SET)];
	sym_pass(sym, hot, n, 0); /* fill the cache */
	t0 = now_s();
	f_c = sym_pass(sym, hot, n, 0);
	t_c = now_s() - t0;
	sym_close(sym);
	for (i = 0; i < n && i < ONE_PROCESS_MAX; i++)
		a2l[i] = addrs[n > ONE_PROCESS_MAX ? i * (n / ONE_PROCESS_MAX) : i];
	f_a2l = addr2line_pass(elf, a2l, i, &t_a2l);
	c0 = cpu_s(true);
	f_each = f_a2l < 0 ? -1
			   : addr2line_each(elf, distinct, nd, PER_ADDR_MAX, PER_ADDR_BUDGET_S,
					    &each_n, &t_each);
	c_each = cpu_s(true) - c0;

	printf("sym-bench: %s: %zu lookups over %zu distinct addresses\n", elf, n, nd);
	printf("sym-bench: sym_open (cold)                  %10.3f ms\n", t_open * 1e3);
	printf("sym-bench: fresh Dwfl, first pass %8llu frames in %8.3f ms = %10.0f frames/s\n",
	       (unsigned long long)f_cold, t_cold * 1e3, (double)f_cold / t_cold);
	printf("sym-bench: warm Dwfl, no cache   %9llu frames in %8.3f ms = %10.0f frames/s\n",
	       (unsigned long long)f_nc, t_nc * 1e3, (double)f_nc / t_nc);
	printf("sym-bench: warm Dwfl, cached     %9llu frames in %8.3f ms = %10.0f frames/s\n",
	       (unsigned long long)f_c, t_c * 1e3, (double)f_c / t_c);
	if (f_a2l < 0 || f_each < 0) {
		printf("sym-bench: eu-addr2line did not run (install elfutils to compare)\n");
		return 0;
	}
	a2l_rate = (double)f_a2l / t_a2l;
	each_rate = (double)f_each / t_each;
	printf("sym-bench: eu-addr2line -f -i    %9ld frames in %8.3f ms = %10.0f frames/s\n",
	       f_a2l, t_a2l * 1e3, a2l_rate);
	printf("sym-bench: eu-addr2line per address %6ld frames in %8.3f ms = %10.1f frames/s"
	       " (%zu processes)\n",
	       f_each, t_each * 1e3, each_rate, each_n);
	if (n <= ONE_PROCESS_MAX && (uint64_t)f_a2l != f_nc)
		printf("sym-bench: note: frame counts differ (%llu against %ld)\n",
		       (unsigned long long)f_nc, f_a2l);
	printf("sym-bench: ratio: warm Dwfl %.1fx, cached %.1fx the frames/s of eu-addr2line\n",
	       ((double)f_nc / t_nc) / a2l_rate, ((double)f_c / t_c) / a2l_rate);
	printf("sym-bench: ratio per address: first pass %.0fx, warm Dwfl %.0fx the frames/s of"
	       " one eu-addr2line per address\n",
	       ((double)f_cold / t_cold) / each_rate, ((double)f_nc / t_nc) / each_rate);
	printf("sym-bench: ratio per address in CPU time: warm Dwfl %.0fx (%.0f against %.1f"
	       " frames per CPU second)\n",
	       ((double)f_nc / c_nc) / ((double)f_each / c_each), (double)f_nc / c_nc,
	       (double)f_each / c_each);
	free(addrs);
	free(hot);
	free(distinct);
	return 0;
}
