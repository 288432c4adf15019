/* linux_report.h: Linux KCSAN reports read off the guest console, as report records. */
#ifndef CSAN_WATCH_LINUX_REPORT_H
#define CSAN_WATCH_LINUX_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "csan/abi.h"
#include "watch/report.h"
#include "watch/sym.h"

/*
 * A Linux kernel built with KCSAN prints each data race on its console
 * (kernel/kcsan/report.c, print_report):
 *
 *   ==================================================================
 *   BUG: KCSAN: data-race in test_kernel_read / test_kernel_write
 *
 *   write to 0xffffffff8255a4c0 of 8 bytes by task 93 on cpu 1:
 *    test_kernel_write+0x1d/0x30
 *    access_thread+0x89/0xd0
 *    kthread+0x136/0x160
 *
 *   read to 0xffffffff8255a4c0 of 8 bytes by interrupt on cpu 0:
 *    test_kernel_read+0x10/0x20
 *    ...
 *
 *   value changed: 0x00000000000009a6 -> 0x00000000000009b2
 *
 *   Reported by Kernel Concurrency Sanitizer on:
 *   CPU: 0 PID: 94 Comm: access_thread Not tainted 6.1.0 #1
 *   ==================================================================
 *
 * The parser takes the console line by line and gives back each such
 * block as a struct linux_report; linux_report_to_record turns it into
 * the record the report log takes from the bundled guest, with every
 * frame's address found in the vmlinux by name, so Linux's reports are
 * symbolized (file:line, [inline] frames), deduplicated, counted and
 * written to the JSON like the bundled guest's.  Pure: no KVM, no I/O.
 *
 * What it accepts, as KCSAN and printk make it: printk timestamps and
 * caller ids before each line ("[    1.234567] ", "[    T1] "); lines of
 * other CPUs or threads landing inside a block (torture tests, KUnit),
 * which are skipped and counted; the titles "data-race in A / B",
 * "assert: race in A / B" and, for one side, "... in A+0xoff/0xsize";
 * "race at unknown origin, with ..."; every access wording of 5.8 to 6.x
 * ("read", "write (marked)", "read-write", "assert no accesses",
 * "(scoped)", "(reordered)", "read (marked, reordered)"); task and
 * interrupt contexts; frames "func+0xoff/0xsize", "func+0xoff/0xsize
 * [module]" and bare "0xffffffff81000000" (a kernel without KALLSYMS);
 * the "+-> reordered to:" lines; "value changed:" and "bits changed:";
 * CONFIG_KCSAN_VERBOSE's lock and IRQ-trace lines (skipped).
 */

#define LINUX_REPORT_MAX_FRAMES 64 /* KCSAN's NUM_STACK_ENTRIES */
#define LINUX_REPORT_NAME_MAX	128
#define LINUX_REPORT_LINE_MAX	256
#define LINUX_REPORT_FEED_MAX	1024 /* bytes of a console line looked at */

/* One printed frame, as %pS shows it. */
struct linux_frame {
	char func[LINUX_REPORT_NAME_MAX]; /* "foo.constprop.0"; "" for a bare address */
	uint64_t off, size;		  /* +0xoff/0xsize; size 0 when not printed */
	uint64_t addr;			  /* the bare address, when func is "" */
	char module[64];		  /* "[mod]" or "[mod buildid]" as "mod"; "" for vmlinux */
};

/* One side: the access line and the stack under it. */
struct linux_access {
	uint32_t access; /* CSAN_ACCESS_* bits, from KCSAN's wording */
	uint64_t addr;
	uint64_t size;
	bool interrupt; /* "by interrupt", else "by task N" */
	uint32_t task;
	uint32_t cpu;
	int nframes;
	struct linux_frame frames[LINUX_REPORT_MAX_FRAMES];
	bool reordered; /* a "+-> reordered to:" line followed the stack */
	struct linux_frame reordered_to;
};

struct linux_report {
	char title[LINUX_REPORT_LINE_MAX]; /* the console's "BUG: KCSAN: ..." line */
	uint32_t kind;			   /* enum csan_report_kind */
	unsigned nsides;		   /* 1 (unknown origin) or 2; 0 if none parsed */
	struct linux_access side[CSAN_REPORT_MAX_SIDES];
	uint32_t value_flags; /* CSAN_VALUE_* */
	uint64_t old_value, new_value, mask;
	char where[LINUX_REPORT_LINE_MAX]; /* "CPU: 0 PID: 94 Comm: ..." of the footer */
	unsigned lines;			   /* console lines from the title to the closing rule */
	unsigned foreign;		   /* of those, lines that were not the report's */
	bool complete;			   /* closed by its rule, not cut off */
};

/* What linux_report_feed made of a line. */
enum linux_feed {
	LINUX_LINE_OUTSIDE = 0, /* not part of a KCSAN report (as far as known yet) */
	LINUX_LINE_INSIDE = 1,	/* part of a report still open (or a foreign line within) */
	LINUX_LINE_DONE = 2,	/* the line closed a report: it is in *out */
};

struct linux_report_parser;

/*
 * What the last line fed was to the parser (linux_report_line_role), for
 * a console that holds a report's lines back until it knows the report
 * is whole: bits.
 */
enum {
	LINUX_ROLE_RULE = 1 << 0,     /* a rule of '=' (a report's first or last line) */
	LINUX_ROLE_TITLE = 1 << 1,    /* a "BUG: KCSAN: " title that opened a report */
	LINUX_ROLE_FOREIGN = 1 << 2,  /* inside an open report, but not the report's */
	LINUX_ROLE_AWAITING = 1 << 3, /* no report open, and a title may still follow a rule */
};

/* linux_report_parser_new - an idle parser in @out.  Returns 0 or -ENOMEM. */
int linux_report_parser_new(struct linux_report_parser **out);

/* linux_report_parser_free - release @p and any report still open; NULL is a no-op. */
void linux_report_parser_free(struct linux_report_parser *p);

/*
 * linux_report_feed - take one console line, @linelen bytes at @line (no
 * NUL needed; a trailing "\n" or "\r\n" is ignored; bytes past
 * LINUX_REPORT_FEED_MAX are dropped, which only a foreign line can have).
 * Returns LINUX_LINE_DONE with a finished report in *@out (the caller
 * frees it with linux_report_free), else LINUX_LINE_OUTSIDE or
 * LINUX_LINE_INSIDE with *@out NULL, or -ENOMEM (the line is then lost,
 * the parser stays usable).  A report whose closing rule never comes is
 * handed out, marked incomplete, when the next report starts, after 1000
 * lines, or by linux_report_flush.  Not thread-safe: one parser per
 * console, fed in console order.
 *
 * Wiring in the VMM's Linux profile (the console's line_emit, under the
 * console lock, after the raw line is written out):
 *
 *	struct linux_report *lr;
 *	if (linux_report_feed(parser, l->buf, l->len, &lr) == LINUX_LINE_DONE)
 *		linux_report_submit(log, sym, lr, ...), linux_report_free(lr);
 *
 * and at the guest's exit linux_report_flush, then the same.  The report
 * log for a Linux guest wants env.scoped_word = "reordered" (the kernel's
 * word) and interval_ms = 0: KCSAN already prints a race at most once per
 * CONFIG_KCSAN_REPORT_ONCE_IN_MS, and every block it printed should reach
 * the JSON.
 */
int linux_report_feed(struct linux_report_parser *p, const char *line, size_t linelen,
		      struct linux_report **out);

/*
 * linux_report_line_role - LINUX_ROLE_* bits for the last line
 * linux_report_feed took; 0 before any.  A line that closed a report
 * because a new title came (LINUX_LINE_DONE) has LINUX_ROLE_TITLE: it is
 * the next report's first.
 */
unsigned linux_report_line_role(const struct linux_report_parser *p);

/*
 * linux_report_flush - at the end of the console (guest exit, panic):
 * hand out the report still open, if any, marked incomplete.  Returns 1
 * with it in *@out, or 0 with *@out NULL.
 */
int linux_report_flush(struct linux_report_parser *p, struct linux_report **out);

/* linux_report_free - free a report the parser handed out; NULL is a no-op. */
void linux_report_free(struct linux_report *r);

/*
 * linux_report_to_record - @lr as the report log's record in @out: kind,
 * sides (address, size, access bits, CPU, task or interrupt), values, and
 * each frame's address found by name in @sym (the vmlinux), as a return
 * address (CSAN_SIDE_IP_AFTER: KCSAN's stacks hold return addresses), so
 * report_log_submit symbolizes it to file:line with inline frames and
 * titles it as KCSAN did.  The mechanism is CSAN_MECH_SOFT_WATCH: Linux's
 * KCSAN is a soft watchpoint in the guest.  Frames @sym cannot place
 * (modules, names not in the ELF) are left out and counted in
 * *@unresolved (may be NULL); of local functions that share a name and a
 * size (out-of-line copies of one static inline function), the first is
 * taken, which gives the same source lines; an access larger than
 * CSAN_REPORT_MAX_SIZE
 * is recorded as that size; "reordered to" lines are not recorded.
 * Returns 0, or -EINVAL with the reason in @why when @lr cannot be a
 * record (no side, no frame of a side in the ELF, a CPU number of
 * CSAN_MAX_CPUS or more).  The record then passes report_validate.
 */
int linux_report_to_record(const struct linux_report *lr, struct sym *sym,
			   struct csan_hc_report *out, unsigned *unresolved, char *why,
			   size_t whylen);

struct report_log;

/*
 * linux_report_submit - @lr into the report log @log, which prints,
 * counts and deduplicates it like the bundled guest's reports:
 * linux_report_to_record against @sym (the vmlinux the log symbolizes
 * with), then report_log_submit.  Returns 1 if printed, 0 if only
 * counted (a repeat within the log's interval), -EINVAL with the reason
 * in @why (nothing counted; the caller should say so: a lost report), or
 * -ENOMEM.  Frames left out are counted in *@unresolved (may be NULL).
 */
int linux_report_submit(struct report_log *log, struct sym *sym, const struct linux_report *lr,
			unsigned *unresolved, char *why, size_t whylen);

/*
 * linux_access_bits - KCSAN's wording of an access type ("read-write
 * (marked)", "assert no writes (reordered)") as CSAN_ACCESS_* bits into
 * @bits.  Returns 0, or -EINVAL for words KCSAN does not print.
 */
int linux_access_bits(const char *words, size_t len, uint32_t *bits);

#endif /* CSAN_WATCH_LINUX_REPORT_H */
