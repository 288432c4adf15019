/* report.c: race reports: checking the guest's record, symbolizing, naming. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "watch/report.h"

#define A_W CSAN_ACCESS_WRITE
#define A_C CSAN_ACCESS_COMPOUND
#define A_M CSAN_ACCESS_ATOMIC
#define A_A CSAN_ACCESS_ASSERT
#define A_S CSAN_ACCESS_SCOPED

/*
 * KCSAN's words for each combination it makes (kernel/kcsan/report.c).
 * Scoped accesses say "scoped", as KCSAN did before it began simulating
 * reordering: csan-vmm does not reorder, so "reordered" would mislead.
 * Every other combination is rejected by report_validate.
 */
static const char *const access_names[CSAN_ACCESS_KNOWN + 1] = {
	[0] = "read",
	[A_M] = "read (marked)",
	[A_W] = "write",
	[A_W | A_M] = "write (marked)",
	[A_C | A_W] = "read-write",
	[A_C | A_W | A_M] = "read-write (marked)",
	[A_S] = "read (scoped)",
	[A_S | A_M] = "read (marked, scoped)",
	[A_S | A_W] = "write (scoped)",
	[A_S | A_W | A_M] = "write (marked, scoped)",
	[A_S | A_C | A_W] = "read-write (scoped)",
	[A_S | A_C | A_W | A_M] = "read-write (marked, scoped)",
	[A_A] = "assert no writes",
	[A_A | A_W] = "assert no accesses",
	[A_A | A_S] = "assert no writes (scoped)",
	[A_A | A_W | A_S] = "assert no accesses (scoped)",
};

static const char *const kind_names[CSAN_REPORT_KIND_MAX] = {
	[CSAN_REPORT_DATA_RACE] = "data-race",
	[CSAN_REPORT_ASSERT] = "assert-race",
	[CSAN_REPORT_UNKNOWN_ORIGIN] = "unknown-origin",
};

static const char *const mech_names[CSAN_MECH_MAX] = {
	[CSAN_MECH_SOFT_WATCH] = "guest soft watchpoint",
	[CSAN_MECH_HW_DEBUGREG] = "host debug register",
	[CSAN_MECH_HOST_UNWIND] = "host unwind",
	[CSAN_MECH_SOFT_AND_HW] = "guest soft watchpoint and host debug register",
	[CSAN_MECH_SAMPLING] = "host sampling breakpoint",
};

static const char *const mech_short[CSAN_MECH_MAX] = {
	[CSAN_MECH_SOFT_WATCH] = "soft-watchpoint",
	[CSAN_MECH_HW_DEBUGREG] = "debug-register",
	[CSAN_MECH_HOST_UNWIND] = "host-unwind",
	[CSAN_MECH_SOFT_AND_HW] = "soft-watchpoint+debug-register",
	[CSAN_MECH_SAMPLING] = "sampling",
};

const char *report_access_name(uint32_t access)
{
	return access <= CSAN_ACCESS_KNOWN ? access_names[access] : NULL;
}

const char *report_kind_name(uint32_t kind)
{
	return kind < CSAN_REPORT_KIND_MAX && kind_names[kind] ? kind_names[kind] : "?";
}

const char *report_mech_name(uint32_t mech)
{
	return mech < CSAN_MECH_MAX && mech_names[mech] ? mech_names[mech] : "?";
}

const char *report_mech_short(uint32_t mech)
{
	return mech < CSAN_MECH_MAX && mech_short[mech] ? mech_short[mech] : "?";
}

int report_reject(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* The header fields of a used side; @i names it in messages. */
static int validate_side_head(const struct csan_report_side *s, unsigned i, char *why,
			      size_t whylen)
{
	if (s->size < 1 || s->size > CSAN_REPORT_MAX_SIZE)
		return report_reject(why, whylen, "side[%u].size: %u not in 1..%u", i, s->size,
				     CSAN_REPORT_MAX_SIZE);
	if (s->addr + s->size - 1 < s->addr)
		return report_reject(why, whylen, "side[%u].addr: %#llx + %u wraps around", i,
				     (unsigned long long)s->addr, s->size);
	if (!report_access_name(s->access))
		return report_reject(why, whylen, "side[%u].access: %#x is not a KCSAN access type",
				     i, s->access);
	if (s->cpu >= CSAN_MAX_CPUS)
		return report_reject(why, whylen, "side[%u].cpu: %u not below %u", i, s->cpu,
				     CSAN_MAX_CPUS);
	if (s->context != CSAN_CTX_TASK && s->context != CSAN_CTX_INTERRUPT)
		return report_reject(why, whylen,
				     "side[%u].context: %u is neither task (%u) nor interrupt (%u)",
				     i, s->context, CSAN_CTX_TASK, CSAN_CTX_INTERRUPT);
	if (s->context == CSAN_CTX_INTERRUPT && s->task_id)
		return report_reject(why, whylen,
				     "side[%u].task_id: %u for an interrupt, must be 0", i,
				     s->task_id);
	if (s->mechanism < CSAN_MECH_SOFT_WATCH || s->mechanism >= CSAN_MECH_MAX)
		return report_reject(why, whylen, "side[%u].mechanism: %u not in 1..%u", i,
				     s->mechanism, CSAN_MECH_MAX - 1);
	if (s->flags & ~CSAN_SIDE_KNOWN)
		return report_reject(why, whylen, "side[%u].flags: unknown bits %#x", i,
				     s->flags & ~CSAN_SIDE_KNOWN);
	return 0;
}

/* The stack of a used side: a count in range and no zero address in it. */
static int validate_side_stack(const struct csan_report_side *s, unsigned i, char *why,
			       size_t whylen)
{
	unsigned j;

	if (!s->ip)
		return report_reject(why, whylen, "side[%u].ip: 0", i);
	if (s->nret > CSAN_REPORT_MAX_STACK)
		return report_reject(why, whylen, "side[%u].nret: %u above %u", i, s->nret,
				     CSAN_REPORT_MAX_STACK);
	for (j = 0; j < s->nret; j++)
		if (!s->ret[j])
			return report_reject(why, whylen, "side[%u].ret[%u]: 0 within nret %u", i,
					     j, s->nret);
	return 0;
}

/* An unused side must be all zero, so that a later ABI can give it meaning. */
static int validate_unused_side(const struct csan_report_side *s, unsigned i, char *why,
				size_t whylen)
{
	static const struct csan_report_side zero;

	if (memcmp(s, &zero, sizeof(zero)) != 0)
		return report_reject(why, whylen,
				     "side[%u]: not zero, but nsides says it is unused", i);
	return 0;
}

/* The kind agrees with the side count and with the sides' assert bits. */
static int validate_kind(const struct csan_hc_report *r, char *why, size_t whylen)
{
	bool any_assert = false;
	unsigned i;

	if (r->kind < CSAN_REPORT_DATA_RACE || r->kind >= CSAN_REPORT_KIND_MAX)
		return report_reject(why, whylen, "kind: %u not in 1..%u", r->kind,
				     CSAN_REPORT_KIND_MAX - 1);
	if (r->nsides != (r->kind == CSAN_REPORT_UNKNOWN_ORIGIN ? 1u : 2u))
		return report_reject(why, whylen, "nsides: %u, but a %s report has %u", r->nsides,
				     report_kind_name(r->kind),
				     r->kind == CSAN_REPORT_UNKNOWN_ORIGIN ? 1 : 2);
	for (i = 0; i < r->nsides; i++)
		any_assert |= (r->side[i].access & CSAN_ACCESS_ASSERT) != 0;
	if (r->kind == CSAN_REPORT_ASSERT && !any_assert)
		return report_reject(why, whylen,
				     "kind: assert, but no side has CSAN_ACCESS_ASSERT");
	if (r->kind == CSAN_REPORT_DATA_RACE && any_assert)
		return report_reject(why, whylen,
				     "kind: data-race, but a side has CSAN_ACCESS_ASSERT");
	return 0;
}

int report_validate(const struct csan_hc_report *r, char *why, size_t whylen)
{
	unsigned i;
	int err;

	if (r->nsides < 1 || r->nsides > CSAN_REPORT_MAX_SIDES)
		return report_reject(why, whylen, "nsides: %u not in 1..%u", r->nsides,
				     CSAN_REPORT_MAX_SIDES);
	for (i = 0; i < CSAN_REPORT_MAX_SIDES; i++) {
		if (i >= r->nsides)
			err = validate_unused_side(&r->side[i], i, why, whylen);
		else if (!(err = validate_side_head(&r->side[i], i, why, whylen)))
			err = validate_side_stack(&r->side[i], i, why, whylen);
		if (err)
			return err;
	}
	err = validate_kind(r, why, whylen);
	if (err)
		return err;
	if (r->value_flags & ~CSAN_VALUE_KNOWN)
		return report_reject(why, whylen, "value_flags: unknown bits %#x",
				     r->value_flags & ~CSAN_VALUE_KNOWN);
	if ((r->value_flags & CSAN_VALUE_MASK) &&
	    (r->value_flags & (CSAN_VALUE_OLD | CSAN_VALUE_NEW)) !=
		    (CSAN_VALUE_OLD | CSAN_VALUE_NEW))
		return report_reject(why, whylen,
				     "value_flags: a mask needs the old and new values");
	if (!(r->value_flags & CSAN_VALUE_MASK) && r->mask)
		return report_reject(why, whylen, "mask: %#llx without CSAN_VALUE_MASK",
				     (unsigned long long)r->mask);
	return 0;
}

/* The sanitizer's own functions, which KCSAN leaves off its stacks too. */
static bool is_runtime(const char *func, unsigned flags)
{
	return func && ((!(flags & REPORT_SYM_FOREIGN_KERNEL) && strncmp(func, "csan_", 5) == 0) ||
			strncmp(func, "__tsan_", 7) == 0);
}

/* A frame of the runtime: by its function's name, or the ELF symbol holding it. */
static bool is_runtime_frame(const struct sym_frame *fr, unsigned flags)
{
	return is_runtime(fr->func, flags) || is_runtime(fr->symbol, flags);
}

/*
 * The runtime's functions by ELF symbol, wherever they are in a stack:
 * the compiler's entry points, the slow paths, the report code and the
 * port (whose inlined hypercall helpers carry its symbol).  Narrower
 * than is_runtime(): the kernel has csan_ functions of its own
 * (csan_run_on_cpus) that belong in a stack below the access.
 */
static bool is_runtime_symbol(const char *sym)
{
	static const char *const prefixes[] = {
		"__tsan_",
		"__csan_",
		"csan_setup_watchpoint",
		"csan_found_watchpoint",
		"csan_check_",
		"csan_report_",
		"csan_port_",
		"csan_stack_save",
		"kcsan_",
		"__kcsan_",
	};
	size_t i;

	for (i = 0; sym && i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(sym, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

/*
 * Below the top: leave out runtime frames, and end an interrupt's stack
 * at the interrupt entry, as KCSAN's reports do; what lies past it is
 * the interrupted context (often the runtime's own watch), not the
 * interrupt's story.
 */
static void trim_side(struct sym *sym, const struct csan_report_side *s, struct report_side_sym *ss)
{
	int i, n = ss->dropped + 1;

	for (i = ss->dropped + 1; i < ss->nframes; i++) {
		const struct sym_frame *fr = &ss->frames[i];

		if (is_runtime_symbol(fr->symbol))
			continue;
		ss->frames[n++] = *fr;
		if (s->context == CSAN_CTX_INTERRUPT && sym_in_entry_text(sym, fr->addr)) {
			ss->entry = n - 1;
			break;
		}
	}
	if (s->context == CSAN_CTX_INTERRUPT && ss->entry < 0 &&
	    sym_in_entry_text(sym, ss->frames[ss->dropped].addr)) {
		ss->entry = ss->dropped;
		n = ss->dropped + 1;
	}
	ss->nframes = n;
}

/* Append the frames of one PC to @ss, growing its array. */
static int append_pc(struct sym *sym, struct report_side_sym *ss, int *cap, uint64_t pc,
		     unsigned flags)
{
	struct sym_frame fr[SYM_MAX_FRAMES];
	int n = sym_lookup(sym, pc, flags, fr, SYM_MAX_FRAMES);

	if (n < 0)
		return n;
	if (ss->nframes + n > *cap) {
		int ncap = *cap ? *cap * 2 : 32;
		struct sym_frame *p;

		while (ncap < ss->nframes + n)
			ncap *= 2;
		p = realloc(ss->frames, (size_t)ncap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		ss->frames = p;
		*cap = ncap;
	}
	memcpy(ss->frames + ss->nframes, fr, (size_t)n * sizeof(*fr));
	ss->nframes += n;
	return 0;
}

static int symbolize_side(struct sym *sym, const struct csan_report_side *s, unsigned flags,
			  struct report_side_sym *ss)
{
	int cap = 0, err;
	unsigned j;

	err = append_pc(sym, ss, &cap, s->ip, (s->flags & CSAN_SIDE_IP_AFTER) ? SYM_RETADDR : 0);
	for (j = 0; !err && j < s->nret; j++)
		err = append_pc(sym, ss, &cap, s->ret[j], SYM_RETADDR);
	if (err)
		return err;
	/*
	 * Frame granularity: an inlined runtime helper goes, its caller stays.
	 * A helper whose own name is not the runtime's (watch.c's watch(),
	 * inlined into csan_setup_watchpoint) goes by the ELF symbol holding
	 * it: a debug register can trap the runtime's read of a watched value.
	 */
	while (ss->dropped < ss->nframes - 1 && is_runtime_frame(&ss->frames[ss->dropped], flags))
		ss->dropped++;
	ss->entry = -1;
	trim_side(sym, s, ss);
	ss->top = &ss->frames[ss->dropped];
	return 0;
}

/*
 * The title's name for a side, as the kernel's %ps gives it: the ELF
 * symbol holding the first frame that is not the runtime's.
 */
static const char *title_name(const struct sym_frame *top, char *buf, size_t len)
{
	if (top->symbol)
		return top->symbol;
	if (top->func)
		return top->func;
	snprintf(buf, len, "0x%llx", (unsigned long long)top->addr);
	return buf;
}

/* KCSAN's title and our signature; names sorted so the title is stable. */
static void make_title(const struct csan_hc_report *r, struct report_sym *rs)
{
	char b0[24], b1[24];
	const char *a = title_name(rs->side[0].top, b0, sizeof(b0)), *b, *t;
	/*
	 * As KCSAN's: an assertion's watch that saw a change nobody owned is
	 * still an "assert: race", though its kind is unknown-origin.
	 */
	const bool assert = r->kind == CSAN_REPORT_ASSERT ||
			    ((r->side[0].access | (r->nsides > 1 ? r->side[1].access : 0)) &
			     CSAN_ACCESS_ASSERT);
	const char *bug = assert ? "assert: race" : "data-race";

	if (r->kind == CSAN_REPORT_UNKNOWN_ORIGIN) {
		const struct sym_frame *top = rs->side[0].top;

		if (top->symbol)
			snprintf(rs->title, sizeof(rs->title), "BUG: KCSAN: %s in %s+0x%llx/0x%llx",
				 bug, top->symbol, (unsigned long long)top->sym_off,
				 (unsigned long long)top->sym_size);
		else
			snprintf(rs->title, sizeof(rs->title), "BUG: KCSAN: %s in %s", bug, a);
		snprintf(rs->signature, sizeof(rs->signature), "%s:%s", report_kind_name(r->kind),
			 a);
		return;
	}
	b = title_name(rs->side[1].top, b1, sizeof(b1));
	if (strcmp(a, b) > 0) {
		t = a;
		a = b;
		b = t;
	}
	snprintf(rs->title, sizeof(rs->title), "BUG: KCSAN: %s in %s / %s", bug, a, b);
	snprintf(rs->signature, sizeof(rs->signature), "%s:%s/%s", report_kind_name(r->kind), a, b);
}

int report_symbolize(struct sym *sym, const struct csan_hc_report *r, unsigned flags,
		     struct report_sym **out)
{
	struct report_sym *rs = calloc(1, sizeof(*rs));
	unsigned i;
	int err = 0;

	*out = NULL;
	if (!rs)
		return -ENOMEM;
	for (i = 0; !err && i < r->nsides && i < CSAN_REPORT_MAX_SIDES; i++)
		err = symbolize_side(sym, &r->side[i], flags, &rs->side[i]);
	if (err) {
		report_sym_free(rs);
		return err;
	}
	make_title(r, rs);
	*out = rs;
	return 0;
}

void report_sym_free(struct report_sym *rs)
{
	unsigned i;

	if (!rs)
		return;
	for (i = 0; i < CSAN_REPORT_MAX_SIDES; i++)
		free(rs->side[i].frames);
	free(rs);
}
