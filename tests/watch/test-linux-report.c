/* test-linux-report.c: Linux KCSAN console reports parsed, and turned into records. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "watch/linux_report.h"
#include "watch/report.h"
#include "watch/report_log.h"
#include "../unit/check.h"
#include "watch-test.h"

#define MAX_REPORTS 128

static int streq(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static const char *fixture(const char *name)
{
	static char path[4096];
	const char *top = getenv("top_srcdir");

	snprintf(path, sizeof(path), "%s/tests/watch/linux/%s", top && *top ? top : ".", name);
	return path;
}

/* Feed every line of @path; the reports in @out, their count returned (-1: no file). */
static int feed_file(const char *path, struct linux_report **out, int max, int *inside)
{
	struct linux_report_parser *p;
	struct linux_report *r;
	char line[4096];
	FILE *f = fopen(path, "r");
	int n = 0, rc;

	if (!f) {
		fprintf(stderr, "test-linux-report: cannot open %s\n", path);
		return -1;
	}
	CHECK(linux_report_parser_new(&p) == 0);
	while (fgets(line, sizeof(line), f)) {
		rc = linux_report_feed(p, line, strlen(line), &r);
		CHECK(rc >= 0);
		if (inside && rc != LINUX_LINE_OUTSIDE)
			(*inside)++;
		CHECK((rc == LINUX_LINE_DONE) == (r != NULL));
		if (r && n < max)
			out[n++] = r;
		else
			linux_report_free(r);
	}
	if (linux_report_flush(p, &r) == 1) {
		if (n < max)
			out[n++] = r;
		else
			linux_report_free(r);
	}
	CHECK(linux_report_flush(p, &r) == 0 && r == NULL);
	linux_report_parser_free(p);
	fclose(f);
	return n;
}

static void check_frame(const struct linux_frame *f, const char *func, uint64_t off, uint64_t size,
			const char *module)
{
	CHECK(streq(f->func, func));
	CHECK_EQ_U64(f->off, off);
	CHECK_EQ_U64(f->size, size);
	CHECK(streq(f->module, module));
	if (!streq(f->func, func))
		fprintf(stderr, "frame: got %s, want %s\n", f->func, func);
}

/* Every shape KCSAN prints, from tests/watch/linux/shapes.txt. */
static void test_shapes(void)
{
	struct linux_report *r[MAX_REPORTS];
	const struct linux_access *a;
	int n = feed_file(fixture("shapes.txt"), r, MAX_REPORTS, NULL), i;

	CHECK_EQ_U64(n, 5);
	if (n != 5)
		goto out;

	/* Two sides, a task and an interrupt, a foreign line in a stack. */
	CHECK(streq(r[0]->title, "BUG: KCSAN: data-race in test_kernel_read / test_kernel_write"));
	CHECK_EQ_U64(r[0]->kind, CSAN_REPORT_DATA_RACE);
	CHECK_EQ_U64(r[0]->nsides, 2);
	CHECK(r[0]->complete);
	CHECK_EQ_U64(r[0]->foreign, 1);
	a = &r[0]->side[0];
	CHECK_EQ_U64(a->access, CSAN_ACCESS_WRITE);
	CHECK_EQ_U64(a->addr, 0xffffffff8255a4c0ull);
	CHECK_EQ_U64(a->size, 8);
	CHECK(!a->interrupt);
	CHECK_EQ_U64(a->task, 93);
	CHECK_EQ_U64(a->cpu, 1);
	CHECK_EQ_U64(a->nframes, 4);
	check_frame(&a->frames[0], "test_kernel_write", 0x1d, 0x30, "");
	check_frame(&a->frames[2], "kthread", 0x136, 0x160, "");
	check_frame(&a->frames[3], "ret_from_fork", 0x1f, 0x30, "");
	a = &r[0]->side[1];
	CHECK_EQ_U64(a->access, 0);
	CHECK(a->interrupt);
	CHECK_EQ_U64(a->task, 0);
	CHECK_EQ_U64(a->cpu, 0);
	CHECK_EQ_U64(a->nframes, 4);
	check_frame(&a->frames[1], "test_kernel_read_struct_member.constprop.0", 7, 0x10,
		    "kcsan_test");
	check_frame(&a->frames[2], "", 0, 0, "");
	CHECK_EQ_U64(a->frames[2].addr, 0xffffffff81234567ull);
	CHECK_EQ_U64(r[0]->value_flags, CSAN_VALUE_OLD | CSAN_VALUE_NEW);
	CHECK_EQ_U64(r[0]->old_value, 0x9a6);
	CHECK_EQ_U64(r[0]->new_value, 0x9b2);
	CHECK(streq(r[0]->where, "CPU: 0 PID: 94 Comm: access_thread Not tainted 6.1.0 #1"));
	CHECK_EQ_U64(r[0]->lines, 21);

	/* The KASAN block in between is not taken.  Unknown origin, no timestamps. */
	CHECK(streq(r[1]->title, "BUG: KCSAN: data-race in kcsan_test_torn_write+0x3b/0x80"));
	CHECK_EQ_U64(r[1]->kind, CSAN_REPORT_UNKNOWN_ORIGIN);
	CHECK_EQ_U64(r[1]->nsides, 1);
	CHECK_EQ_U64(r[1]->side[0].access, 0);
	CHECK_EQ_U64(r[1]->side[0].size, 4);
	CHECK_EQ_U64(r[1]->side[0].task, 95);
	CHECK_EQ_U64(r[1]->side[0].cpu, 2);
	CHECK_EQ_U64(r[1]->side[0].nframes, 2);
	CHECK_EQ_U64(r[1]->old_value, 1);
	CHECK_EQ_U64(r[1]->new_value, 2);
	CHECK_EQ_U64(r[1]->foreign, 0);

	/* An assertion, reordered, a KUnit line between rule and title, a mask. */
	CHECK_EQ_U64(r[2]->kind, CSAN_REPORT_ASSERT);
	CHECK_EQ_U64(r[2]->side[0].access, CSAN_ACCESS_ASSERT | CSAN_ACCESS_SCOPED);
	CHECK_EQ_U64(r[2]->side[0].nframes, 2);
	CHECK(r[2]->side[0].reordered);
	check_frame(&r[2]->side[0].reordered_to, "test_kernel_assert_bits_change", 0x55, 0x90, "");
	CHECK_EQ_U64(r[2]->side[1].access,
		     CSAN_ACCESS_COMPOUND | CSAN_ACCESS_WRITE | CSAN_ACCESS_ATOMIC);
	CHECK_EQ_U64(r[2]->value_flags, CSAN_VALUE_OLD | CSAN_VALUE_NEW | CSAN_VALUE_MASK);
	CHECK_EQ_U64(r[2]->mask, 0xff00);
	CHECK_EQ_U64(r[2]->foreign, 0);

	/* Its closing rule lost: the next report's opening rule closes it. */
	CHECK_EQ_U64(r[3]->side[0].access, CSAN_ACCESS_COMPOUND | CSAN_ACCESS_WRITE |
						   CSAN_ACCESS_ATOMIC | CSAN_ACCESS_SCOPED);
	CHECK_EQ_U64(r[3]->side[1].access, CSAN_ACCESS_WRITE | CSAN_ACCESS_ATOMIC);
	CHECK_EQ_U64(r[3]->value_flags, 0);
	CHECK(streq(r[3]->where, ""));

	/* Cut off by the end of the console: handed out by the flush, incomplete. */
	CHECK(streq(r[4]->title, "BUG: KCSAN: data-race in mid / writer"));
	CHECK(!r[4]->complete);
	CHECK_EQ_U64(r[4]->side[1].nframes, 3);
out:
	for (i = 0; i < n; i++)
		linux_report_free(r[i]);
}

/*
 * A real console: Linux 6.1's KCSAN KUnit suite under QEMU, cut down to
 * 12 reports (tests/watch/linux/kunit-excerpt.txt), torture threads'
 * lines inside some of them.
 */
static void test_kunit_excerpt(void)
{
	static const unsigned foreign[] = { 0, 0, 0, 1, 2, 0, 2, 0, 0, 0, 0, 0 };
	struct linux_report *r[MAX_REPORTS];
	int inside = 0, n = feed_file(fixture("kunit-excerpt.txt"), r, MAX_REPORTS, &inside), i;
	unsigned s;
	int j;

	CHECK_EQ_U64(n, 12);
	if (n != 12)
		goto out;
	for (i = 0; i < n; i++) {
		CHECK(r[i]->complete);
		CHECK_EQ_U64(r[i]->foreign, foreign[i]);
		CHECK_EQ_U64(r[i]->nsides, r[i]->kind == CSAN_REPORT_UNKNOWN_ORIGIN ? 1 : 2);
		CHECK(strncmp(r[i]->where, "CPU: ", 5) == 0);
		for (s = 0; s < r[i]->nsides; s++) {
			CHECK(r[i]->side[s].nframes >= 4);
			for (j = 0; j < r[i]->side[s].nframes; j++)
				CHECK(r[i]->side[s].frames[j].func[0] &&
				      !r[i]->side[s].frames[j].module[0]);
		}
	}
	/* A timer interrupt's write, and its stack into softirq and the interrupted task. */
	CHECK(streq(r[2]->title,
		    "BUG: KCSAN: data-race in test_kernel_rmw_array / test_kernel_rmw_array"));
	CHECK(r[2]->side[0].interrupt && r[2]->side[0].cpu == 2);
	CHECK_EQ_U64(r[2]->side[0].nframes, 15);
	check_frame(&r[2]->side[0].frames[1], "access_thread_timer", 0x3b, 0x3d, "");
	CHECK(!r[2]->side[1].interrupt && r[2]->side[1].task == 44);
	/* Unknown origin, a torture line inside its stack. */
	CHECK_EQ_U64(r[3]->kind, CSAN_REPORT_UNKNOWN_ORIGIN);
	CHECK_EQ_U64(r[3]->side[0].nframes, 4);
	CHECK_EQ_U64(r[3]->new_value, 0x108a2);
	/* 64-byte struct writes, marked accesses, a mask, reordered scoped asserts. */
	CHECK_EQ_U64(r[4]->side[0].size, 64);
	CHECK_EQ_U64(r[5]->side[0].access, CSAN_ACCESS_WRITE | CSAN_ACCESS_ATOMIC);
	CHECK_EQ_U64(r[6]->side[0].access,
		     CSAN_ACCESS_COMPOUND | CSAN_ACCESS_WRITE | CSAN_ACCESS_ATOMIC);
	CHECK_EQ_U64(r[9]->kind, CSAN_REPORT_ASSERT);
	CHECK_EQ_U64(r[9]->mask, 0xff00ff00);
	CHECK_EQ_U64(r[10]->side[1].access, CSAN_ACCESS_ASSERT | CSAN_ACCESS_SCOPED);
	CHECK(r[10]->side[1].reordered);
	check_frame(&r[10]->side[1].reordered_to, "test_kernel_assert_writer_scoped", 0x35, 0x48,
		    "");
out:
	for (i = 0; i < n; i++)
		linux_report_free(r[i]);
}

/* KCSAN's every access wording (get_access_type), old and new. */
static void test_access_words(void)
{
	static const struct {
		const char *w;
		uint32_t bits;
	} ok[] = {
		{ "read", 0 },
		{ "read (marked)", CSAN_ACCESS_ATOMIC },
		{ "write", CSAN_ACCESS_WRITE },
		{ "write (marked)", CSAN_ACCESS_WRITE | CSAN_ACCESS_ATOMIC },
		{ "read-write", CSAN_ACCESS_COMPOUND | CSAN_ACCESS_WRITE },
		{ "read-write (marked)",
		  CSAN_ACCESS_COMPOUND | CSAN_ACCESS_WRITE | CSAN_ACCESS_ATOMIC },
		{ "read (scoped)", CSAN_ACCESS_SCOPED },
		{ "read (reordered)", CSAN_ACCESS_SCOPED },
		{ "read (marked, reordered)", CSAN_ACCESS_SCOPED | CSAN_ACCESS_ATOMIC },
		{ "write (marked, scoped)",
		  CSAN_ACCESS_SCOPED | CSAN_ACCESS_ATOMIC | CSAN_ACCESS_WRITE },
		{ "read-write (reordered)",
		  CSAN_ACCESS_SCOPED | CSAN_ACCESS_COMPOUND | CSAN_ACCESS_WRITE },
		{ "assert no writes", CSAN_ACCESS_ASSERT },
		{ "assert no accesses", CSAN_ACCESS_ASSERT | CSAN_ACCESS_WRITE },
		{ "assert no writes (scoped)", CSAN_ACCESS_ASSERT | CSAN_ACCESS_SCOPED },
		{ "assert no accesses (reordered)",
		  CSAN_ACCESS_ASSERT | CSAN_ACCESS_WRITE | CSAN_ACCESS_SCOPED },
	};
	static const char *const bad[] = {
		"",	 "reads", "read ()", "read (marked", "read (atomic)", "read (marked,)",
		"Write", "assert"
	};
	uint32_t bits;
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		bits = 0xdead;
		CHECK(linux_access_bits(ok[i].w, strlen(ok[i].w), &bits) == 0);
		CHECK_EQ_U64(bits, ok[i].bits);
		/* And csan-vmm's own wording of them, where it has one, agrees. */
		if (!(bits & CSAN_ACCESS_SCOPED) || !strstr(ok[i].w, "reordered"))
			CHECK(streq(report_access_name(bits), ok[i].w));
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(linux_access_bits(bad[i], strlen(bad[i]), &bits) == -EINVAL);
}

/* Lines that look almost right are not taken; the block survives them. */
static void test_near_misses(void)
{
	static const char *const lines[] = {
		"==================================================================",
		"BUG: KCSAN: data-race in a / b",
		"",
		"write to 0xffffffff81000000 of 8 bytes by task 1 on cpu 0: extra",
		"write to 0xffffffff81000000 of 8 bytes by task 1 on cpu 0:",
		"a+0x1/0x2",	       /* no leading blank: foreign */
		" a+0x1/0x2 trailing", /* foreign */
		" a+0x1",	       /* foreign */
		" a+0x10/0x20",
		" ? b+0x1/0x2", /* a WARN's unreliable frame: foreign */
		"",
		"read (marked) to 0xffffffff81000000 of 8 bytes by task 2 on cpu 1:",
		" b+0x3/0x40\r\n",
		"value changed: 0x1 -> ",
		"",
		"Reported by Kernel Concurrency Sanitizer on:",
		"==================================================================",
		" c+0x1/0x2",
	};
	struct linux_report_parser *p;
	struct linux_report *r = NULL, *got = NULL;
	size_t i;
	int rc;

	/* What each line was, for a console that holds a block back (6: foreign). */
	static const unsigned roles[] = {
		LINUX_ROLE_RULE | LINUX_ROLE_AWAITING,
		LINUX_ROLE_TITLE,
		0,
		LINUX_ROLE_FOREIGN,
		0,
		LINUX_ROLE_FOREIGN,
		LINUX_ROLE_FOREIGN,
		LINUX_ROLE_FOREIGN,
		0,
		LINUX_ROLE_FOREIGN,
		0,
		0,
		0,
		LINUX_ROLE_FOREIGN,
		0,
		0,
		LINUX_ROLE_RULE | LINUX_ROLE_AWAITING,
		LINUX_ROLE_AWAITING,
	};

	CHECK(linux_report_parser_new(&p) == 0);
	CHECK_EQ_U64(linux_report_line_role(p), 0);
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		rc = linux_report_feed(p, lines[i], strlen(lines[i]), &r);
		CHECK_EQ_U64(linux_report_line_role(p), roles[i]);
		if (rc == LINUX_LINE_DONE)
			got = r;
		CHECK_EQ_U64(rc, i == 0 || i == 17			     ? LINUX_LINE_OUTSIDE
				 : i == sizeof(lines) / sizeof(lines[0]) - 2 ? LINUX_LINE_DONE
									     : LINUX_LINE_INSIDE);
	}
	CHECK(got != NULL);
	if (got) {
		CHECK_EQ_U64(got->nsides, 2);
		CHECK_EQ_U64(got->side[0].nframes, 1);
		check_frame(&got->side[0].frames[0], "a", 0x10, 0x20, "");
		CHECK_EQ_U64(got->side[1].nframes, 1);
		check_frame(&got->side[1].frames[0], "b", 3, 0x40, "");
		CHECK_EQ_U64(got->value_flags, 0);
		CHECK_EQ_U64(got->foreign, 6);
		CHECK(got->complete);
	}
	linux_report_free(got);
	/* A title with no rule before it is someone quoting one, not a report. */
	for (i = 0; i < 8; i++) {
		CHECK_EQ_U64(linux_report_feed(p, "some other line", 15, &r), LINUX_LINE_OUTSIDE);
		/* The rule's wait: the title may come up to RULE_WAIT (8) lines after it. */
		CHECK_EQ_U64(linux_report_line_role(p), i < 6 ? LINUX_ROLE_AWAITING : 0);
	}
	CHECK_EQ_U64(linux_report_feed(p, "BUG: KCSAN: data-race in a / b", 30, &r),
		     LINUX_LINE_OUTSIDE);
	CHECK(r == NULL);
	linux_report_parser_free(p);
}

/* CONFIG_PRINTK_TIME and CONFIG_PRINTK_CALLER prefixes, together and alone. */
static void test_printk_prefixes(void)
{
	static const char *const lines[] = {
		"[    3.141592][    T1] "
		"==================================================================",
		"[    3.141593][    C2] BUG: KCSAN: data-race in a / b",
		"[    3.141594][    T1] ",
		"[  T42] write to 0xffffffff81000000 of 8 bytes by task 42 on cpu 1:",
		"[    3.141595]  a+0x10/0x20",
		"[    3.141596][    T1] read to 0xffffffff81000000 of 8 bytes by interrupt on cpu "
		"2:",
		"[    3.141597][    C2]  b+0x3/0x40",
		"[1234567.123456][ T9999] "
		"==================================================================",
	};
	struct linux_report_parser *p;
	struct linux_report *r = NULL;
	size_t i;

	CHECK(linux_report_parser_new(&p) == 0);
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		linux_report_feed(p, lines[i], strlen(lines[i]), &r);
	CHECK(r != NULL);
	if (r) {
		CHECK(streq(r->title, "BUG: KCSAN: data-race in a / b"));
		CHECK_EQ_U64(r->nsides, 2);
		CHECK_EQ_U64(r->side[0].task, 42);
		check_frame(&r->side[0].frames[0], "a", 0x10, 0x20, "");
		CHECK(r->side[1].interrupt && r->side[1].cpu == 2);
		check_frame(&r->side[1].frames[0], "b", 3, 0x40, "");
		CHECK_EQ_U64(r->foreign, 0);
	}
	linux_report_free(r);
	linux_report_parser_free(p);
}

/*
 * The record, against the checked-in symtest.elf: frames found by name,
 * then symbolized by the report pipeline with its inline frames, titled as
 * the console did.
 */
static void test_record(void)
{
	struct linux_report *r[MAX_REPORTS];
	struct csan_hc_report rec;
	struct report_sym *rs = NULL;
	unsigned unresolved = 99;
	char why[512] = "";
	struct sym *sym;
	int n = feed_file(fixture("shapes.txt"), r, MAX_REPORTS, NULL), i;

	CHECK(sym_open(symtest_path(), &sym, why, sizeof(why)) == 0);
	CHECK_EQ_U64(n, 5);
	if (n != 5 || !sym)
		goto out;
	CHECK(linux_report_to_record(r[4], sym, &rec, &unresolved, why, sizeof(why)) == 0);
	CHECK_EQ_U64(unresolved, 1); /* the module's frame */
	CHECK_EQ_U64(rec.kind, CSAN_REPORT_DATA_RACE);
	CHECK_EQ_U64(rec.nsides, 2);
	CHECK_EQ_U64(rec.side[0].ip, 0x401110);
	CHECK_EQ_U64(rec.side[0].nret, 1);
	CHECK_EQ_U64(rec.side[0].ret[0], 0x401156);
	CHECK_EQ_U64(rec.side[0].context, CSAN_CTX_TASK);
	CHECK_EQ_U64(rec.side[0].task_id, 3);
	CHECK_EQ_U64(rec.side[1].ip, 0x40103c);
	CHECK_EQ_U64(rec.side[1].nret, 1);
	CHECK_EQ_U64(rec.side[1].ret[0], 0x40105c);
	CHECK_EQ_U64(rec.side[1].context, CSAN_CTX_INTERRUPT);
	CHECK_EQ_U64(rec.side[1].flags, CSAN_SIDE_IP_AFTER);
	CHECK(report_validate(&rec, why, sizeof(why)) == 0);
	CHECK(report_symbolize(sym, &rec, 0, &rs) == 0);
	if (rs) {
		CHECK(streq(rs->title, r[4]->title));
		CHECK(streq(rs->signature, "data-race:mid/writer"));
		/* mid+0xc is the call in call_leaf, inlined into mid. */
		CHECK(rs->side[1].nframes >= 2);
		CHECK(streq(rs->side[1].frames[0].func, "call_leaf"));
		CHECK(rs->side[1].frames[0].inlined);
		CHECK(streq(rs->side[1].frames[0].file, "tests/watch/symtest.c"));
		CHECK_EQ_U64(rs->side[1].frames[0].line, 32);
		CHECK(streq(rs->side[1].frames[1].func, "mid"));
		CHECK_EQ_U64(rs->side[1].frames[1].line, 37);
		CHECK_EQ_U64(rs->side[1].frames[1].sym_off, 0xc);
	}
	report_sym_free(rs);
	/* A report whose frames are all elsewhere names the vmlinux it looked in. */
	CHECK(linux_report_to_record(r[0], sym, &rec, &unresolved, why, sizeof(why)) == -EINVAL);
	CHECK_CONTAINS(why, "symtest.elf");
	CHECK_CONTAINS(why, "test_kernel_write+0x1d/0x30");
out:
	for (i = 0; i < n; i++)
		linux_report_free(r[i]);
	sym_close(sym);
}

/* A Linux console says "reordered" where csan-vmm says "scoped": so does the report. */
static void test_reordered_words(struct sym *sym, struct csan_hc_report *rec)
{
	const struct report_env env = { "vmlinux", "soft", "reordered" };
	const uint32_t rw = CSAN_ACCESS_COMPOUND | CSAN_ACCESS_WRITE | CSAN_ACCESS_ATOMIC;
	struct report_sym *rs = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	rec->side[0].access = rw | CSAN_ACCESS_SCOPED;
	rec->side[1].access = rw;
	CHECK(report_symbolize(sym, rec, 0, &rs) == 0);
	if (rs) {
		report_print_text(f, rec, rs, &env);
		report_print_json(f, rec, rs, &env, &(struct report_meta){ 1, 0, 1 });
	}
	fclose(f);
	CHECK_CONTAINS(buf, "\nread-write (marked, reordered) to 0x");
	CHECK_CONTAINS(buf, "\nread-write (marked) to 0x");
	CHECK_CONTAINS(buf, "guest soft watchpoint (read-write (marked, reordered))");
	CHECK_CONTAINS(buf, "\"access\":\"read-write (marked, reordered)\"");
	CHECK(!strstr(buf, "scoped"));
	free(buf);
	report_sym_free(rs);
}

/* Reports the record cannot hold say why. */
static void test_record_rejects(void)
{
	struct linux_report lr = { .kind = CSAN_REPORT_DATA_RACE, .nsides = 1 };
	struct csan_hc_report rec;
	char why[256];
	struct sym *sym;

	CHECK(sym_open(symtest_path(), &sym, why, sizeof(why)) == 0);
	if (!sym)
		return;
	snprintf(lr.title, sizeof(lr.title), "BUG: KCSAN: data-race in a / b");
	CHECK(linux_report_to_record(&lr, sym, &rec, NULL, why, sizeof(why)) == -EINVAL);
	CHECK_CONTAINS(why, "1 access line");
	lr.nsides = 2;
	lr.side[0].nframes = 1;
	snprintf(lr.side[0].frames[0].func, sizeof(lr.side[0].frames[0].func), "leaf");
	lr.side[0].frames[0].size = 0x20;
	lr.side[0].size = 4;
	lr.side[1] = lr.side[0];
	lr.side[1].cpu = CSAN_MAX_CPUS;
	CHECK(linux_report_to_record(&lr, sym, &rec, NULL, why, sizeof(why)) == -EINVAL);
	CHECK_CONTAINS(why, "cpu 64");
	lr.side[1].cpu = 3;
	lr.side[1].nframes = 0;
	CHECK(linux_report_to_record(&lr, sym, &rec, NULL, why, sizeof(why)) == -EINVAL);
	CHECK_CONTAINS(why, "side 1: no stack frames");
	lr.side[1].nframes = 1;
	lr.side[1].size = 65536; /* memcpy of a large struct: kept, at the record's limit */
	CHECK(linux_report_to_record(&lr, sym, &rec, NULL, why, sizeof(why)) == 0);
	CHECK_EQ_U64(rec.side[1].size, CSAN_REPORT_MAX_SIZE);
	CHECK_EQ_U64(rec.side[1].ip, 0x401010);
	CHECK(report_validate(&rec, why, sizeof(why)) == 0);
	test_reordered_words(sym, &rec);
	sym_close(sym);
}

/*
 * Through the report log, as the VMM's Linux profile submits: printed in
 * the bundled guest's layout with file:line and [inline] frames, counted
 * under one signature, in the JSON and the summary.
 */
static void test_submit(void)
{
	struct linux_report *r[MAX_REPORTS];
	char *text = NULL, *json = NULL, why[256];
	size_t tlen = 0, jlen = 0;
	FILE *tf = open_memstream(&text, &tlen), *jf = open_memstream(&json, &jlen);
	struct report_log_opts o = { .env = { .guest = "vmlinux", .mode = "soft" },
				     .text = tf,
				     .json = jf,
				     .interval_ms = 60000 };
	struct report_log *log = NULL;
	unsigned lost = 9;
	int n = feed_file(fixture("shapes.txt"), r, MAX_REPORTS, NULL), i;

	CHECK(sym_open(symtest_path(), &o.sym, why, sizeof(why)) == 0);
	CHECK(report_log_new(&o, &log) == 0);
	CHECK_EQ_U64(n, 5);
	if (n != 5 || !log)
		goto out;
	CHECK_EQ_U64(linux_report_submit(log, o.sym, r[4], &lost, why, sizeof(why)), 1);
	CHECK_EQ_U64(lost, 1);
	/* The same race again within the interval: counted, not printed. */
	CHECK_EQ_U64(linux_report_submit(log, o.sym, r[4], NULL, why, sizeof(why)), 0);
	/* Frames of another kernel: refused with the reason, nothing counted. */
	CHECK_EQ_U64(linux_report_submit(log, o.sym, r[0], NULL, why, sizeof(why)), -EINVAL);
	CHECK_EQ_U64(report_log_total(log), 2);
	report_log_summary(log);
	fflush(tf);
	fflush(jf);
	CHECK_CONTAINS(text, "BUG: KCSAN: data-race in mid / writer\n\n"
			     "write to 0x0000000000403000 of 4 bytes by task 3 on cpu 1:\n"
			     " writer+0x10/0x1e tests/watch/symtest.c:");
	CHECK_CONTAINS(text, "read to 0x0000000000403000 of 4 bytes by interrupt on cpu 0:\n"
			     " call_leaf tests/watch/symtest.c:32 [inline]\n"
			     " mid+0xc/0x17 tests/watch/symtest.c:37\n");
	CHECK_CONTAINS(text, "Reported by csan-vmm on guest vmlinux (watch mode: soft)");
	CHECK_CONTAINS(text, "csan-vmm:          2");
	CHECK_CONTAINS(text, "data-race in mid / writer");
	CHECK_CONTAINS(json, "\"signature\":\"data-race:mid/writer\"");
	CHECK_CONTAINS(json, "\"context\":\"interrupt\"");
	CHECK_CONTAINS(json, "{\"type\":\"summary\",\"signature\":\"data-race:mid/writer\"");
out:
	report_log_free(log);
	sym_close(o.sym);
	fclose(tf);
	fclose(jf);
	free(text);
	free(json);
	for (i = 0; i < n; i++)
		linux_report_free(r[i]);
}

int main(void)
{
	test_shapes();
	test_kunit_excerpt();
	test_access_words();
	test_near_misses();
	test_printk_prefixes();
	test_record();
	test_record_rejects();
	test_submit();
	return check_exit_status("test-linux-report");
}
