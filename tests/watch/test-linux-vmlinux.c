/* test-linux-vmlinux.c: captured Linux KCSAN reports symbolized against their vmlinux. */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "watch/linux_report.h"
#include "watch/report.h"
#include "watch/report_log.h"
#include "../unit/check.h"

/*
 * tests/watch/linux/kunit-excerpt.txt is cut from the console of Linux
 * 6.1's KCSAN KUnit suite (tools/linux/build-vmlinux.sh's kernel under
 * QEMU TCG).  With that kernel's vmlinux in $CSAN_VMLINUX, every report
 * must come out of the pipeline whole: each frame found in the ELF, each
 * title as the kernel printed it, file:line on every top frame, inline
 * frames where the kernel inlined.  A vmlinux is 70 MB and is not
 * checked in: without one, or with another kernel, the test skips.
 */

#define SKIP	    77
#define MAX_REPORTS 64

static const char *excerpt(void)
{
	static char path[4096];
	const char *top = getenv("top_srcdir");

	snprintf(path, sizeof(path), "%s/tests/watch/linux/kunit-excerpt.txt",
		 top && *top ? top : ".");
	return path;
}

/*
 * Whether @sym is the kernel the excerpt was captured from: the same
 * release in the banner (its first line), and every printed frame's size
 * that of its function in the ELF, give or take alignment padding (this
 * configuration builds with -Os: only assembly functions are padded).  The builder's name, host and
 * date in the banner may differ.  Names the first difference in @why.
 */
static int same_kernel(const char *vmlinux, struct sym *sym, const char *banner,
		       struct linux_report **r, int n, char *why, size_t whylen)
{
	const char *paren = strstr(banner, " (");
	size_t len = paren ? (size_t)(paren - banner) : strlen(banner);
	struct stat st;
	int fd = open(vmlinux, O_RDONLY | O_CLOEXEC), i, j;
	unsigned s;
	void *p;
	bool found;

	if (fd < 0 || fstat(fd, &st) != 0) {
		if (fd >= 0)
			close(fd);
		snprintf(why, whylen, "cannot read %.400s", vmlinux);
		return 0;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		snprintf(why, whylen, "cannot map %.400s", vmlinux);
		return 0;
	}
	found = memmem(p, (size_t)st.st_size, banner, len) != NULL;
	munmap(p, (size_t)st.st_size);
	if (!found) {
		snprintf(why, whylen, "no \"%.*s\" in it", (int)len, banner);
		return 0;
	}
	for (i = 0; i < n; i++)
		for (s = 0; s < r[i]->nsides; s++)
			for (j = 0; j < r[i]->side[s].nframes; j++) {
				const struct linux_frame *f = &r[i]->side[s].frames[j];
				uint64_t addr, size = 0;

				/* kallsyms counts alignment padding (entry code) into the size. */
				if (sym_addr_of(sym, f->func, f->size, &addr, &size) != 0 ||
				    size > f->size || f->size - size >= 64) {
					snprintf(why, whylen,
						 "%s is 0x%llx bytes there, 0x%llx here", f->func,
						 (unsigned long long)f->size,
						 (unsigned long long)size);
					return 0;
				}
			}
	return 1;
}

static int feed(FILE *f, struct linux_report **out, char *banner, size_t bannerlen)
{
	struct linux_report_parser *p;
	struct linux_report *r;
	char line[4096];
	int n = 0;

	CHECK(linux_report_parser_new(&p) == 0);
	banner[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		if (!banner[0]) {
			size_t k = strcspn(line, "\r\n");

			if (k >= bannerlen)
				k = bannerlen - 1;
			memcpy(banner, line, k);
			banner[k] = '\0';
		}
		if (linux_report_feed(p, line, strlen(line), &r) == LINUX_LINE_DONE) {
			if (n < MAX_REPORTS)
				out[n++] = r;
			else
				linux_report_free(r);
		}
	}
	if (linux_report_flush(p, &r) == 1 && n < MAX_REPORTS)
		out[n++] = r;
	linux_report_parser_free(p);
	return n;
}

/* One report through to_record and symbolize; returns its inline frames. */
static int check_report(struct sym *sym, const struct linux_report *lr)
{
	struct csan_hc_report rec;
	struct report_sym *rs = NULL;
	unsigned lost = 99, i;
	char why[512] = "";
	int inl = 0, j, err;

	err = linux_report_to_record(lr, sym, &rec, &lost, why, sizeof(why));
	CHECK(err == 0);
	if (err) {
		fprintf(stderr, "%s: %s\n", lr->title, why);
		return 0;
	}
	CHECK_EQ_U64(lost, 0);
	CHECK(report_validate(&rec, why, sizeof(why)) == 0);
	CHECK(report_symbolize(sym, &rec, 0, &rs) == 0);
	if (!rs)
		return 0;
	/* KCSAN's own title, rebuilt from the symbolized frames. */
	CHECK(strcmp(rs->title, lr->title) == 0);
	if (strcmp(rs->title, lr->title) != 0)
		fprintf(stderr, "title: console \"%s\", csan-vmm \"%s\"\n", lr->title, rs->title);
	for (i = 0; i < rec.nsides; i++) {
		const struct report_side_sym *ss = &rs->side[i];

		CHECK(ss->top->file != NULL && ss->top->line > 0);
		/* Every printed frame is at least one symbolized frame. */
		CHECK(ss->nframes >= lr->side[i].nframes);
		for (j = 0; j < ss->nframes; j++) {
			CHECK(ss->frames[j].func != NULL);
			inl += ss->frames[j].inlined;
		}
	}
	report_sym_free(rs);
	return inl;
}

/*
 * Without $CSAN_VMLINUX: the suite's test kernel, from its cache (the
 * script builds it when it is not there yet; tools/check.sh builds it
 * before the suite).  Returns 0 with its path in @buf, SKIP when this
 * machine cannot build it (the script's reason printed), 1 on failure.
 */
static int test_kernel(char *buf, size_t len)
{
	const char *top = getenv("top_srcdir");
	char cmd[4096];
	FILE *p;
	int st;

	if (!top) {
		printf("test-linux-vmlinux: SKIP: set CSAN_VMLINUX, or run it through make check\n");
		return SKIP;
	}
	snprintf(cmd, sizeof(cmd), "'%s/tools/linux/build-vmlinux.sh' -q", top);
	p = popen(cmd, "r");
	if (!p || !fgets(buf, (int)len, p)) {
		st = p ? pclose(p) : -1;
		if (WIFEXITED(st) && WEXITSTATUS(st) == SKIP) {
			printf("test-linux-vmlinux: SKIP: the test kernel cannot be built here (see above)\n");
			return SKIP;
		}
		fprintf(stderr, "test-linux-vmlinux: %s failed (status %d)\n", cmd, st);
		return 1;
	}
	buf[strcspn(buf, "\n")] = '\0';
	st = pclose(p);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "test-linux-vmlinux: %s failed (status %d)\n", cmd, st);
		return 1;
	}
	return 0;
}

int main(void)
{
	const char *vmlinux = getenv("CSAN_VMLINUX");
	char built[4096];
	struct linux_report *r[MAX_REPORTS];
	struct report_log_opts o = { .env = { .guest = "vmlinux", .mode = "soft" } };
	struct report_log *log = NULL;
	char banner[512], why[512];
	int n, i, inl = 0, rc = 0;
	FILE *f;

	if (!vmlinux || !*vmlinux) {
		rc = test_kernel(built, sizeof(built));
		if (rc)
			return rc;
		vmlinux = built;
	}
	f = fopen(excerpt(), "r");
	if (!f) {
		fprintf(stderr, "test-linux-vmlinux: cannot open %s\n", excerpt());
		return 1;
	}
	n = feed(f, r, banner, sizeof(banner));
	fclose(f);
	if (sym_open(vmlinux, &o.sym, why, sizeof(why)) != 0) {
		printf("test-linux-vmlinux: SKIP: %s\n", why);
		rc = SKIP;
		goto out;
	}
	if (!same_kernel(vmlinux, o.sym, banner, r, n, why, sizeof(why))) {
		printf("test-linux-vmlinux: SKIP: %s is not the kernel the excerpt was captured "
		       "from: %s\n",
		       vmlinux, why);
		rc = SKIP;
		goto out;
	}
	CHECK(sym_has_dwarf(o.sym));
	CHECK_EQ_U64(n, 12);
	if (!sym_has_dwarf(o.sym))
		goto out;
	for (i = 0; i < n; i++) {
		CHECK(r[i]->complete);
		inl += check_report(o.sym, r[i]);
	}
	/* The timer interrupt's stack: expire_timers and __run_timers are inlined. */
	CHECK(inl > 0);
	/* Deduplicated as the bundled guest's: 12 reports of 8 races. */
	o.text = tmpfile();
	CHECK(report_log_new(&o, &log) == 0);
	for (i = 0; log && i < n; i++)
		CHECK(linux_report_submit(log, o.sym, r[i], NULL, why, sizeof(why)) >= 0);
	if (log) {
		CHECK_EQ_U64(report_log_total(log), 12);
		CHECK_EQ_U64(report_log_distinct(log), 8);
	}
out:
	report_log_free(log);
	if (o.text)
		fclose(o.text);
	sym_close(o.sym);
	for (i = 0; i < n; i++)
		linux_report_free(r[i]);
	return rc ? rc : check_exit_status("test-linux-vmlinux");
}
