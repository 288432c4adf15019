/* linux_report.c: Linux KCSAN report blocks picked out of console lines. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "watch/linux_report.h"

/* printk prints a rule of 66 '=' around each report (kernel/kcsan/report.c). */
#define RULE_LEN 66
/* Lines a rule may wait for its title: other CPUs' lines can come between. */
#define RULE_WAIT 8
/* A block that never closes is handed out after this many lines. */
#define BLOCK_MAX 1000

static const char title_lead[] = "BUG: KCSAN: ";
static const char unknown_lead[] = "race at unknown origin, with ";
static const char footer_lead[] = "Reported by Kernel Concurrency Sanitizer on:";

enum where {
	IN_HEADER, /* after the title, before the first access line */
	IN_SIDE,   /* an access line, then its stack */
	IN_TAIL,   /* value change lines */
	IN_FOOTER, /* "Reported by ...", then CPU and hardware lines */
};

struct linux_report_parser {
	struct linux_report *cur; /* the open report, or NULL */
	enum where where;
	unsigned since_rule; /* lines since the last rule; RULE_WAIT + 1: none recent */
	unsigned role;	     /* LINUX_ROLE_* of the last line fed */
};

int linux_report_parser_new(struct linux_report_parser **out)
{
	struct linux_report_parser *p = calloc(1, sizeof(*p));

	*out = p;
	if (!p)
		return -ENOMEM;
	p->since_rule = RULE_WAIT + 1;
	return 0;
}

void linux_report_free(struct linux_report *r)
{
	free(r);
}

void linux_report_parser_free(struct linux_report_parser *p)
{
	if (!p)
		return;
	linux_report_free(p->cur);
	free(p);
}

/* Skip printk's "[    1.234567] " time and "[    T1] " caller prefixes. */
static const char *skip_printk_prefix(const char *s)
{
	int k;

	for (k = 0; k < 2 && s[0] == '['; k++) {
		const char *q = s + 1;

		while (*q == ' ')
			q++;
		if (*q == 'T' || *q == 'C')
			q++;
		if (!isdigit((unsigned char)*q))
			break;
		while (isdigit((unsigned char)*q) || *q == '.')
			q++;
		if (*q != ']')
			break;
		s = q + 1;
		if (*s == ' ')
			s++;
	}
	return s;
}

static bool is_rule(const char *s, size_t len)
{
	size_t i;

	if (len != RULE_LEN)
		return false;
	for (i = 0; i < len; i++)
		if (s[i] != '=')
			return false;
	return true;
}

static bool starts(const char *s, size_t len, const char *lead)
{
	size_t n = strlen(lead);

	return len >= n && memcmp(s, lead, n) == 0;
}

/* A hex number after "0x" at *@s; advances *@s.  False if none. */
static bool hex_at(const char **s, const char *end, uint64_t *v)
{
	const char *p = *s;
	uint64_t x = 0;
	int digits = 0;

	if (end - p < 3 || p[0] != '0' || p[1] != 'x')
		return false;
	for (p += 2; p < end && isxdigit((unsigned char)*p) && digits < 16; p++, digits++)
		x = x * 16 + (uint64_t)(isdigit((unsigned char)*p)
						? *p - '0'
						: tolower((unsigned char)*p) - 'a' + 10);
	if (!digits || (p < end && isxdigit((unsigned char)*p)))
		return false;
	*v = x;
	*s = p;
	return true;
}

/* A decimal number at *@s; advances *@s. */
static bool dec_at(const char **s, const char *end, uint64_t *v)
{
	const char *p = *s;
	uint64_t x = 0;

	if (p >= end || !isdigit((unsigned char)*p))
		return false;
	for (; p < end && isdigit((unsigned char)*p); p++) {
		if (x > (UINT64_MAX - 9) / 10)
			return false;
		x = x * 10 + (uint64_t)(*p - '0');
	}
	*v = x;
	*s = p;
	return true;
}

/* The literal @lit at *@s; advances *@s. */
static bool lit_at(const char **s, const char *end, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(end - *s) < n || memcmp(*s, lit, n) != 0)
		return false;
	*s += n;
	return true;
}

static bool is_symchar(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '$';
}

/*
 * A %pS frame after @s's leading blanks: "func+0xoff/0xsize", optionally
 * " [module]" or " [module buildid]", or a bare "0x..." address.
 */
static bool parse_frame(const char *s, const char *end, struct linux_frame *f)
{
	const char *name;
	size_t n;

	memset(f, 0, sizeof(*f));
	if (s >= end || *s != ' ')
		return false;
	while (s < end && *s == ' ')
		s++;
	if (hex_at(&s, end, &f->addr))
		return s == end;
	for (name = s; s < end && is_symchar(*s); s++)
		;
	n = (size_t)(s - name);
	if (!n || n >= sizeof(f->func) || !lit_at(&s, end, "+") || !hex_at(&s, end, &f->off) ||
	    !lit_at(&s, end, "/") || !hex_at(&s, end, &f->size))
		return false;
	memcpy(f->func, name, n);
	if (s == end)
		return true;
	if (!lit_at(&s, end, " [") || end[-1] != ']')
		return false;
	for (name = s; s < end - 1 && *s != ' ' && *s != ']'; s++)
		;
	n = (size_t)(s - name);
	if (!n || n >= sizeof(f->module))
		return false;
	memcpy(f->module, name, n);
	return true;
}

int linux_access_bits(const char *w, size_t len, uint32_t *bits)
{
	static const struct {
		const char *words;
		uint32_t bits;
	} bases[] = {
		/* Longest first: "read" is a prefix of "read-write". */
		{ "assert no accesses", CSAN_ACCESS_ASSERT | CSAN_ACCESS_WRITE },
		{ "assert no writes", CSAN_ACCESS_ASSERT },
		{ "read-write", CSAN_ACCESS_COMPOUND | CSAN_ACCESS_WRITE },
		{ "write", CSAN_ACCESS_WRITE },
		{ "read", 0 },
	};
	const char *end = w + len;
	uint32_t b = 0;
	size_t i;

	for (i = 0; i < sizeof(bases) / sizeof(bases[0]); i++)
		if (lit_at(&w, end, bases[i].words))
			break;
	if (i == sizeof(bases) / sizeof(bases[0]))
		return -EINVAL;
	b = bases[i].bits;
	if (w == end)
		goto out;
	/* " (marked)", " (scoped)", " (reordered)", " (marked, reordered)" */
	if (!lit_at(&w, end, " (") || end[-1] != ')' || w == end - 1)
		return -EINVAL;
	for (end--; w < end;) {
		if (lit_at(&w, end, "marked"))
			b |= CSAN_ACCESS_ATOMIC;
		else if (lit_at(&w, end, "scoped") || lit_at(&w, end, "reordered"))
			b |= CSAN_ACCESS_SCOPED;
		else
			return -EINVAL;
		if (w < end && !lit_at(&w, end, ", "))
			return -EINVAL;
	}
out:
	*bits = b;
	return 0;
}

/*
 * "<type> to 0x<addr> of <n> bytes by task <pid> on cpu <n>:" or "... by
 * interrupt on cpu <n>:" into @a.
 */
static bool parse_access(const char *s, const char *end, struct linux_access *a)
{
	const char *to = NULL, *p;
	uint64_t v;

	/* The type's words end at the last " to 0x" before " of ". */
	for (p = s; p + 6 <= end; p++)
		if (memcmp(p, " to 0x", 6) == 0)
			to = p;
	if (!to)
		return false;
	memset(a, 0, sizeof(*a));
	if (linux_access_bits(s, (size_t)(to - s), &a->access) != 0)
		return false;
	p = to + 4;
	if (!hex_at(&p, end, &a->addr) || !lit_at(&p, end, " of ") || !dec_at(&p, end, &a->size) ||
	    !lit_at(&p, end, " bytes by "))
		return false;
	if (lit_at(&p, end, "interrupt")) {
		a->interrupt = true;
	} else {
		if (!lit_at(&p, end, "task ") || !dec_at(&p, end, &v) || v > UINT32_MAX)
			return false;
		a->task = (uint32_t)v;
	}
	if (!lit_at(&p, end, " on cpu ") || !dec_at(&p, end, &v) || v > UINT32_MAX ||
	    !lit_at(&p, end, ":") || p != end)
		return false;
	a->cpu = (uint32_t)v;
	return true;
}

/* "value changed: 0x... -> 0x..." */
static bool parse_value(const char *s, const char *end, struct linux_report *r)
{
	uint64_t o, n;

	if (!lit_at(&s, end, "value changed: ") || !hex_at(&s, end, &o) ||
	    !lit_at(&s, end, " -> ") || !hex_at(&s, end, &n) || s != end)
		return false;
	r->old_value = o;
	r->new_value = n;
	r->value_flags |= CSAN_VALUE_OLD | CSAN_VALUE_NEW;
	return true;
}

/* " bits changed: 0x... with mask 0x..." */
static bool parse_mask(const char *s, const char *end, struct linux_report *r)
{
	uint64_t diff, mask;

	if (!lit_at(&s, end, " bits changed: ") || !hex_at(&s, end, &diff) ||
	    !lit_at(&s, end, " with mask ") || !hex_at(&s, end, &mask) || s != end)
		return false;
	r->mask = mask;
	r->value_flags |= CSAN_VALUE_MASK;
	return true;
}

/* "  +-> reordered to: func+0x.../0x..." after a side's stack. */
static bool parse_reordered(const char *s, const char *end, struct linux_access *a)
{
	static const char lead[] = "  +-> reordered to:";

	if (!starts(s, (size_t)(end - s), lead))
		return false;
	if (!parse_frame(s + sizeof(lead) - 1, end, &a->reordered_to))
		return false;
	a->reordered = true;
	return true;
}

static void copy_line(char *dst, size_t cap, const char *s, size_t len)
{
	if (len >= cap)
		len = cap - 1;
	memcpy(dst, s, len);
	dst[len] = '\0';
}

/* Open a report at its title line (@s, @len: the line without prefixes). */
static int open_report(struct linux_report_parser *p, const char *s, size_t len)
{
	struct linux_report *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	copy_line(r->title, sizeof(r->title), s, len);
	r->kind = strstr(r->title, "assert: race") ? CSAN_REPORT_ASSERT : CSAN_REPORT_DATA_RACE;
	r->lines = 1;
	p->cur = r;
	p->where = IN_HEADER;
	return 0;
}

/* Hand the open report out. */
static int close_report(struct linux_report_parser *p, bool complete, struct linux_report **out)
{
	*out = p->cur;
	p->cur = NULL;
	(*out)->complete = complete;
	return LINUX_LINE_DONE;
}

/* A line of the open report's body; false when it is not the report's. */
static bool body_line(struct linux_report_parser *p, const char *s, const char *end)
{
	struct linux_report *r = p->cur;
	struct linux_access *a = r->nsides ? &r->side[r->nsides - 1] : NULL;
	struct linux_frame f;
	bool unknown;

	if (s == end)
		return true; /* KCSAN's blank separators */
	unknown = starts(s, (size_t)(end - s), unknown_lead);
	if (p->where <= IN_SIDE && r->nsides < CSAN_REPORT_MAX_SIDES &&
	    parse_access(unknown ? s + sizeof(unknown_lead) - 1 : s, end, &r->side[r->nsides])) {
		r->nsides++;
		if (unknown)
			r->kind = CSAN_REPORT_UNKNOWN_ORIGIN;
		p->where = IN_SIDE;
		return true;
	}
	if (p->where == IN_SIDE && a && !a->reordered && parse_frame(s, end, &f)) {
		if (a->nframes < LINUX_REPORT_MAX_FRAMES)
			a->frames[a->nframes++] = f;
		return true;
	}
	if (p->where == IN_SIDE && a && (end - s == 3 && memcmp(s, "  |", 3) == 0))
		return true;
	if (p->where == IN_SIDE && a && parse_reordered(s, end, a))
		return true;
	if (p->where <= IN_TAIL && r->nsides && parse_value(s, end, r)) {
		p->where = IN_TAIL;
		return true;
	}
	if (p->where == IN_TAIL && parse_mask(s, end, r))
		return true;
	if (starts(s, (size_t)(end - s), footer_lead)) {
		p->where = IN_FOOTER;
		return true;
	}
	if (p->where == IN_FOOTER && !r->where[0] && starts(s, (size_t)(end - s), "CPU: ")) {
		copy_line(r->where, sizeof(r->where), s, (size_t)(end - s));
		return true;
	}
	if (p->where == IN_FOOTER && starts(s, (size_t)(end - s), "Hardware name: "))
		return true;
	return false;
}

static int feed(struct linux_report_parser *p, const char *line, size_t linelen,
		struct linux_report **out)
{
	char buf[LINUX_REPORT_FEED_MAX + 1];
	const char *s, *end;
	size_t len;
	int rc;

	*out = NULL;
	/* A copy with a NUL: the console hands out buffers, not strings. */
	if (linelen > LINUX_REPORT_FEED_MAX)
		linelen = LINUX_REPORT_FEED_MAX;
	memcpy(buf, line, linelen);
	buf[linelen] = '\0';
	s = skip_printk_prefix(buf);
	end = buf + linelen;
	while (end > s && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	len = (size_t)(end - s);
	if (is_rule(s, len)) {
		p->role |= LINUX_ROLE_RULE;
		/*
		 * A closing rule may also be the opening one of the next
		 * report, when this one lost its own closing rule.
		 */
		p->since_rule = 0;
		if (p->cur) {
			p->cur->lines++;
			return close_report(p, true, out);
		}
		return LINUX_LINE_OUTSIDE;
	}
	if (p->since_rule <= RULE_WAIT)
		p->since_rule++;
	if (starts(s, len, title_lead)) {
		/* A new title inside a report: the old one lost its closing rule. */
		rc = p->cur ? close_report(p, false, out) : LINUX_LINE_OUTSIDE;
		if (rc == LINUX_LINE_DONE || p->since_rule <= RULE_WAIT) {
			if (open_report(p, s, len) != 0)
				return rc == LINUX_LINE_DONE ? rc : -ENOMEM;
			p->role |= LINUX_ROLE_TITLE;
			p->since_rule = RULE_WAIT + 1;
			return rc == LINUX_LINE_DONE ? rc : LINUX_LINE_INSIDE;
		}
		return rc;
	}
	if (!p->cur)
		return LINUX_LINE_OUTSIDE;
	p->cur->lines++;
	if (!body_line(p, s, end)) {
		p->cur->foreign++;
		p->role |= LINUX_ROLE_FOREIGN;
	}
	if (p->cur->lines >= BLOCK_MAX)
		return close_report(p, false, out);
	return LINUX_LINE_INSIDE;
}

int linux_report_feed(struct linux_report_parser *p, const char *line, size_t linelen,
		      struct linux_report **out)
{
	int rc;

	p->role = 0;
	rc = feed(p, line, linelen, out);
	/* The next line may still be a title: feed() takes one RULE_WAIT lines on. */
	if (!p->cur && p->since_rule < RULE_WAIT)
		p->role |= LINUX_ROLE_AWAITING;
	return rc;
}

unsigned linux_report_line_role(const struct linux_report_parser *p)
{
	return p->role;
}

int linux_report_flush(struct linux_report_parser *p, struct linux_report **out)
{
	*out = NULL;
	if (!p->cur)
		return 0;
	close_report(p, false, out);
	return 1;
}
