/* report.h: race reports: checking the guest's record, KCSAN-style text, JSON. */
#ifndef CSAN_WATCH_REPORT_H
#define CSAN_WATCH_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "csan/abi.h"
#include "watch/sym.h"

#define REPORT_TITLE_MAX 256
#define REPORT_SIG_MAX	 256

/* What the footer and the JSON say about the run. */
struct report_env {
	const char *guest; /* the guest image, as the user named it */
	const char *mode;  /* the watch mode: "soft", "hw" or "sample" */
	/*
	 * The word for CSAN_ACCESS_SCOPED in access types; NULL: "scoped".
	 * Linux 5.17 and later print "reordered": reports read off a Linux
	 * console say it as the kernel did.
	 */
	const char *scoped_word;
};

/* One side's stack, symbolized: every PC expanded into its frames. */
struct report_side_sym {
	struct sym_frame *frames;
	int nframes;
	int dropped;		     /* runtime frames (csan_*, __tsan_*) left off the top */
	const struct sym_frame *top; /* frames[dropped]: what the title names */
	int entry; /* an interrupt's stack ends at its entry: that frame's index, or -1 */
};

struct report_sym {
	struct report_side_sym side[CSAN_REPORT_MAX_SIDES];
	char title[REPORT_TITLE_MAX];	/* "BUG: KCSAN: data-race in a / b" */
	char signature[REPORT_SIG_MAX]; /* "data-race:a/b", stable across builds */
};

/* Per-report facts that only the report log knows, for the JSON. */
struct report_meta {
	uint64_t seq;	/* 1 for the first report printed */
	double time;	/* seconds since the log started */
	uint64_t count; /* reports with this signature so far, this one included */
};

/*
 * report_reject - format @fmt into @why (@whylen bytes) and return
 * -EINVAL: how every rejection of a report names its field and reason.
 */
int report_reject(char *why, size_t whylen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * report_validate - check every field of @r, which comes from the guest
 * and is not trusted: kind, side count, each used side's size, access
 * bits, CPU, context, mechanism, flags, stack count and addresses, the
 * unused side being zero, the value flags.  Returns 0, or -EINVAL with
 * the field and the reason in @why ("side[1].size: 0 not in 1..4096").
 */
int report_validate(const struct csan_hc_report *r, char *why, size_t whylen);

/*
 * report_symbolize - symbolize the stacks of the valid report @r through
 * @sym, drop runtime frames from the top of each (REPORT_SYM_* @flags), and build the title and
 * the signature (the kind and the sorted pair of function names, without
 * offsets).  Returns 0 with the result in @out (free it with
 * report_sym_free), or -ENOMEM.
 */
int report_symbolize(struct sym *sym, const struct csan_hc_report *r, unsigned flags,
		     struct report_sym **out);

/*
 * report_symbolize flag: the guest is not built on the csan runtime (a
 * Linux kernel), so its csan_* functions are its own, not runtime frames
 * to drop from the top of a stack.
 */
#define REPORT_SYM_FOREIGN_KERNEL 0x1u

/* report_sym_free - free what report_symbolize made; NULL is a no-op. */
void report_sym_free(struct report_sym *rs);

/*
 * report_print_text - print @r (valid, symbolized as @rs) on @f in
 * KCSAN's layout, rules included, with @env in the footer.  The caller
 * keeps concurrent reports apart (the report log locks).
 */
void report_print_text(FILE *f, const struct csan_hc_report *r, const struct report_sym *rs,
		       const struct report_env *env);

/*
 * report_print_json - print @r as one JSON object on one line of @f:
 * raw fields, symbolized frames, title, signature, @env and @meta.
 */
void report_print_json(FILE *f, const struct csan_hc_report *r, const struct report_sym *rs,
		       const struct report_env *env, const struct report_meta *meta);

/*
 * report_print_stack - print the stack @pcs[0..@n) (an IP, then return
 * addresses, as unwind_stack gives it) symbolized through @sym, one frame
 * per line after @prefix, in the same frame format as reports.  For the
 * VMM's fault messages.
 */
void report_print_stack(FILE *f, struct sym *sym, const uint64_t *pcs, unsigned n,
			const char *prefix);

/* report_json_string - @s as a JSON string on @f, escaped; NULL prints null. */
void report_json_string(FILE *f, const char *s);

/*
 * Names: report_access_name gives KCSAN's wording of access bits ("read
 * (marked)", "assert no writes"), NULL for a combination KCSAN never makes;
 * report_kind_name the signature's kind ("data-race", "assert-race",
 * "unknown-origin"); report_mech_name the footer's words for a mechanism
 * ("guest soft watchpoint"), report_mech_short the JSON's
 * ("soft-watchpoint").  Out-of-range values give "?" (or NULL).
 */
const char *report_access_name(uint32_t access);
const char *report_kind_name(uint32_t kind);
const char *report_mech_name(uint32_t mech);
const char *report_mech_short(uint32_t mech);

#endif /* CSAN_WATCH_REPORT_H */
