/* sample_sites.c: which instructions of a piece of kernel text are sampling sites. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>

#include "watch/insn_rules.h"
#include "watch/sample_sites_priv.h"

static const char *const skip_names[SAMPLE_SKIP_COUNT] = {
	[SAMPLE_KEPT] = "kept",
	[SAMPLE_SKIP_UNDECODABLE] = "undecodable",
	[SAMPLE_SKIP_UNSAFE_TEXT] = "unsafe-text",
	[SAMPLE_SKIP_PATCHED] = "patched",
	[SAMPLE_SKIP_MAY_FAULT] = "may-fault",
	[SAMPLE_SKIP_HANDLER_FUNCTION] = "handler-function",
	[SAMPLE_SKIP_NO_MEMORY] = "no-memory",
	[SAMPLE_SKIP_CALL_STACK] = "call-stack",
	[SAMPLE_SKIP_NO_ACCESS] = "no-access",
	[SAMPLE_SKIP_STRING] = "string",
	[SAMPLE_SKIP_PERCPU] = "percpu",
	[SAMPLE_SKIP_ATOMIC] = "atomic",
	[SAMPLE_SKIP_BRANCH] = "branch",
	[SAMPLE_SKIP_SPECIAL] = "special",
	[SAMPLE_SKIP_STACK] = "stack",
	[SAMPLE_SKIP_TWO_ACCESSES] = "two-accesses",
};
_Static_assert(sizeof(skip_names) / sizeof(skip_names[0]) == SAMPLE_SKIP_COUNT,
	       "a name for every reason");

const char *sample_skip_name(enum sample_skip why)
{
	return (unsigned)why < SAMPLE_SKIP_COUNT && skip_names[why] ? skip_names[why] : "?";
}

int sample_grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	q = realloc(*p, n * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

struct sample_table *sample_table_new(void)
{
	struct sample_table *t = calloc(1, sizeof(*t));

	if (t)
		t->sorted = true;
	return t;
}

void sample_table_free(struct sample_table *t)
{
	if (!t)
		return;
	free(t->site);
	free(t->excl);
	free(t->cover);
	free(t->func);
	free(t->order);
	free(t);
}

void sample_table_set_image(struct sample_table *t, uint64_t lo, uint64_t hi)
{
	t->stats.image_lo = lo;
	t->stats.image_hi = hi;
}

int sample_table_exclude(struct sample_table *t, uint64_t lo, uint64_t hi, enum sample_skip why)
{
	if (lo >= hi)
		return 0;
	if (sample_grow((void **)&t->excl, &t->excl_cap, t->nexcl + 1, sizeof(*t->excl)))
		return -ENOMEM;
	t->excl[t->nexcl++] = (struct sample_range){ lo, hi, why };
	t->cover_stale = true;
	return 0;
}

int sample_table_add_function(struct sample_table *t, uint64_t addr)
{
	if (sample_grow((void **)&t->func, &t->func_cap, t->nfunc + 1, sizeof(*t->func)))
		return -ENOMEM;
	t->func[t->nfunc++] = addr;
	t->func_stale = true;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* An end of an excluded range, for the sweep that flattens them. */
struct edge {
	uint64_t at;
	int delta; /* +1 a range of @why opens, -1 closes */
	enum sample_skip why;
};

static int cmp_edge(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;

	return x->at < y->at ? -1 : x->at > y->at;
}

/*
 * The exclusions as disjoint pieces, each with the lowest reason of the
 * ranges over it: one binary search per instruction then, however the
 * ranges nest (an alternative inside .noinstr.text, an exception-table
 * entry inside a handler function).
 */
static int flatten(struct sample_table *t)
{
	struct edge *e = malloc(2 * t->nexcl * sizeof(*e) + 1);
	unsigned open_ranges[SAMPLE_SKIP_COUNT] = { 0 };
	size_t i, n = 0, cap = 0;
	struct sample_range *c = NULL;

	if (!e)
		return -ENOMEM;
	for (i = 0; i < t->nexcl; i++) {
		e[2 * i] = (struct edge){ t->excl[i].lo, 1, t->excl[i].why };
		e[2 * i + 1] = (struct edge){ t->excl[i].hi, -1, t->excl[i].why };
	}
	qsort(e, 2 * t->nexcl, sizeof(*e), cmp_edge);
	for (i = 0; i < 2 * t->nexcl;) {
		uint64_t at = e[i].at;
		enum sample_skip why = SAMPLE_KEPT;
		bool open;
		unsigned r;

		for (; i < 2 * t->nexcl && e[i].at == at; i++)
			open_ranges[e[i].why] += e[i].delta;
		for (r = 1; r < SAMPLE_SKIP_COUNT && !why; r++)
			if (open_ranges[r])
				why = (enum sample_skip)r;
		/* The last piece is open (hi unknown yet) until the reason changes. */
		open = n && c[n - 1].hi == UINT64_MAX;
		if (open && c[n - 1].why == why)
			continue;
		if (open)
			c[n - 1].hi = at;
		if (!why)
			continue;
		if (sample_grow((void **)&c, &cap, n + 1, sizeof(*c))) {
			free(c);
			free(e);
			return -ENOMEM;
		}
		c[n++] = (struct sample_range){ at, UINT64_MAX, why };
	}
	free(e);
	free(t->cover);
	t->cover = c;
	t->ncover = n;
	t->cover_stale = false;
	return 0;
}

/* The lowest reason of the pieces that [@lo, @hi) overlaps, or SAMPLE_KEPT. */
static enum sample_skip excluded(const struct sample_table *t, uint64_t lo, uint64_t hi)
{
	size_t a = 0, b = t->ncover;
	enum sample_skip why = SAMPLE_KEPT;

	while (a < b) { /* the first piece that starts at or after @hi */
		size_t m = a + (b - a) / 2;

		if (t->cover[m].lo < hi)
			a = m + 1;
		else
			b = m;
	}
	while (a-- > 0 && t->cover[a].hi > lo)
		if (!why || t->cover[a].why < why)
			why = t->cover[a].why;
	return why;
}

/* Capstone's general register @reg (64, 32 or 16 bits) in ModRM numbering, or -1. */
static int gpr_number(unsigned reg, bool only64)
{
	static const unsigned r[3][16] = {
		{ X86_REG_RAX, X86_REG_RCX, X86_REG_RDX, X86_REG_RBX, X86_REG_RSP, X86_REG_RBP,
		  X86_REG_RSI, X86_REG_RDI, X86_REG_R8, X86_REG_R9, X86_REG_R10, X86_REG_R11,
		  X86_REG_R12, X86_REG_R13, X86_REG_R14, X86_REG_R15 },
		{ X86_REG_EAX, X86_REG_ECX, X86_REG_EDX, X86_REG_EBX, X86_REG_ESP, X86_REG_EBP,
		  X86_REG_ESI, X86_REG_EDI, X86_REG_R8D, X86_REG_R9D, X86_REG_R10D, X86_REG_R11D,
		  X86_REG_R12D, X86_REG_R13D, X86_REG_R14D, X86_REG_R15D },
		{ X86_REG_AX, X86_REG_CX, X86_REG_DX, X86_REG_BX, X86_REG_SP, X86_REG_BP,
		  X86_REG_SI, X86_REG_DI, X86_REG_R8W, X86_REG_R9W, X86_REG_R10W, X86_REG_R11W,
		  X86_REG_R12W, X86_REG_R13W, X86_REG_R14W, X86_REG_R15W },
	};
	int w, i;

	for (w = 0; w < (only64 ? 1 : 3); w++)
		for (i = 0; i < 16; i++)
			if (r[w][i] == reg)
				return i;
	return -1;
}

static int gpr64(unsigned reg)
{
	return gpr_number(reg, true);
}

static bool in_group(const cs_insn *in, unsigned g)
{
	unsigned i;

	for (i = 0; i < in->detail->groups_count; i++)
		if (in->detail->groups[i] == g)
			return true;
	return false;
}

/*
 * Groups of plain general-purpose instructions; any other group (SSE,
 * AVX, x87, MMX, privileged, VM, ...) makes an instruction "special".
 */
static bool general_groups_only(const cs_insn *in)
{
	unsigned i;

	for (i = 0; i < in->detail->groups_count; i++)
		switch (in->detail->groups[i]) {
		case X86_GRP_MODE64:
		case X86_GRP_MODE32:
		case X86_GRP_NOT64BITMODE:
		case X86_GRP_CMOV:
		case X86_GRP_BMI:
		case X86_GRP_BMI2:
		case X86_GRP_ADX: break;
		default: return false;
		}
	return true;
}

/*
 * ins/outs (6c-6f), movs/cmps (a4-a7), stos/lods/scas (aa-af): one-byte
 * opcodes (SDM Vol. 2D, A.3, Table A-2), with or without REP.
 */
static bool is_string(const cs_x86 *x)
{
	uint8_t op = x->opcode[0];

	if (x->opcode[1] != 0)
		return false;
	return (op >= 0x6c && op <= 0x6f) || (op >= 0xa4 && op <= 0xa7) ||
	       (op >= 0xaa && op <= 0xaf);
}

/* Cache and system instructions capstone puts in no group of their own. */
static bool is_system(unsigned id)
{
	switch (id) {
	case X86_INS_CLFLUSH:
	case X86_INS_CLFLUSHOPT:
	case X86_INS_CLWB:
	case X86_INS_FXSAVE:
	case X86_INS_FXSAVE64:
	case X86_INS_FXRSTOR:
	case X86_INS_FXRSTOR64:
	case X86_INS_XSAVE:
	case X86_INS_XSAVE64:
	case X86_INS_XSAVEOPT:
	case X86_INS_XSAVEOPT64:
	case X86_INS_XSAVES:
	case X86_INS_XSAVES64:
	case X86_INS_XSAVEC:
	case X86_INS_XSAVEC64:
	case X86_INS_XRSTOR:
	case X86_INS_XRSTOR64:
	case X86_INS_XRSTORS:
	case X86_INS_XRSTORS64:
	case X86_INS_LDMXCSR:
	case X86_INS_STMXCSR:
	case X86_INS_SGDT:
	case X86_INS_SIDT:
	case X86_INS_SLDT:
	case X86_INS_STR:
	case X86_INS_SMSW:
	case X86_INS_INVLPG:
	case X86_INS_INVPCID:
	case X86_INS_LGDT:
	case X86_INS_LIDT:
	case X86_INS_LLDT:
	case X86_INS_LTR:
	case X86_INS_LMSW:
	case X86_INS_VERW: /* the MDS buffer clear: reads a constant selector */
	case X86_INS_VERR:
	case X86_INS_LAR:
	case X86_INS_LSL: return true;
	default: return false;
	}
}

/*
 * Besides LOCK and XCHG: CMPXCHG and XADD (see sample_sites.h), and BT on
 * memory, which is Linux's test_bit(): an atomic read by the kernel's
 * definition (KCSAN instruments it as one), unlike __set_bit's BTS.
 */
static bool is_atomic(const cs_insn *in)
{
	switch (in->id) {
	case X86_INS_BT:
	case X86_INS_CMPXCHG:
	case X86_INS_CMPXCHG8B:
	case X86_INS_CMPXCHG16B:
	case X86_INS_XADD: return true;
	default: return insn_is_locked_rmw(in);
	}
}

static bool is_bit_test(unsigned id)
{
	return id == X86_INS_BT || id == X86_INS_BTS || id == X86_INS_BTR || id == X86_INS_BTC;
}

static int log2_of(unsigned v)
{
	switch (v) {
	case 1: return 0;
	case 2: return 1;
	case 4: return 2;
	case 8: return 3;
	default: return -1;
	}
}

/* Fill the operand of @s from capstone's @m; false when it is not one a site can hold. */
static bool set_operand(struct sample_site *s, const x86_op_mem *m)
{
	int base = m->base == X86_REG_INVALID ? SAMPLE_REG_NONE
		   : m->base == X86_REG_RIP   ? SAMPLE_REG_RIP
					      : gpr64(m->base);
	int index = m->index == X86_REG_INVALID ? SAMPLE_REG_NONE : gpr64(m->index);
	int scale = log2_of((unsigned)m->scale);

	/* 32-bit address registers (an 0x67 prefix) and 64-bit displacements: never in kernel C. */
	if (base < 0 || index < 0 || scale < 0 || m->disp != (int32_t)m->disp)
		return false;
	s->base = (unsigned)base;
	s->index = (unsigned)index;
	s->scale_log2 = (unsigned)scale;
	s->disp = (int32_t)m->disp;
	return true;
}

/*
 * Whether @in (decoded with detail) is a site; if so, fill @s.  The
 * reasons are tried in the order of enum sample_skip.
 */
static enum sample_skip classify(const struct sample_table *t, const cs_insn *in,
				 struct sample_site *s)
{
	const cs_x86 *x = &in->detail->x86;
	const cs_x86_op *op = NULL;
	struct insn_access a;
	unsigned i, nmem = 0;
	int size;

	for (i = 0; i < x->op_count; i++)
		if (x->operands[i].type == X86_OP_MEM && nmem++ == 0)
			op = &x->operands[i];
	if (!nmem)
		return insn_stack_direction(in->id) ? SAMPLE_SKIP_CALL_STACK
						    : SAMPLE_SKIP_NO_MEMORY;
	if (insn_touches_no_memory(in->id))
		return SAMPLE_SKIP_NO_ACCESS;
	if (is_string(x))
		return SAMPLE_SKIP_STRING;
	if (op->mem.segment == X86_REG_GS || op->mem.segment == X86_REG_FS)
		return SAMPLE_SKIP_PERCPU;
	if (is_atomic(in))
		return SAMPLE_SKIP_ATOMIC;
	if (in_group(in, X86_GRP_JUMP) || in_group(in, X86_GRP_CALL))
		return SAMPLE_SKIP_BRANCH;
	insn_operand_access(in, op, &a);
	size = log2_of(a.size);
	memset(s, 0, sizeof(*s));
	if (!general_groups_only(in) || is_system(in->id) || size < 0 || !set_operand(s, &op->mem))
		return SAMPLE_SKIP_SPECIAL;
	if (s->base == 4 /* rsp */)
		return SAMPLE_SKIP_STACK;
	if (nmem > 1 || insn_stack_direction(in->id))
		return SAMPLE_SKIP_TWO_ACCESSES;
	s->bit_reg = SAMPLE_REG_NONE;
	if (is_bit_test(in->id) && x->op_count == 2 && x->operands[1].type == X86_OP_REG) {
		int r = gpr_number(x->operands[1].reg, false);

		if (r < 0)
			return SAMPLE_SKIP_SPECIAL;
		s->bit_reg = (unsigned)r;
	}

	s->addr = in->address;
	s->len = in->size;
	s->size_log2 = (unsigned)size;
	s->seg = SAMPLE_SEG_NONE;
	s->read = a.read;
	s->write = a.write;
	s->frame = s->base == 5 /* rbp */;
	if (s->base == SAMPLE_REG_NONE || s->base == SAMPLE_REG_RIP) {
		uint64_t d = (uint64_t)(int64_t)s->disp;

		s->image_disp = s->base == SAMPLE_REG_NONE && d >= t->stats.image_lo &&
				d < t->stats.image_hi;
		s->global =
			s->base == SAMPLE_REG_RIP || (s->index == SAMPLE_REG_NONE && s->image_disp);
	} else {
		uint64_t d = (uint64_t)(int64_t)s->disp;

		s->image_disp = d >= t->stats.image_lo && d < t->stats.image_hi;
	}
	return SAMPLE_KEPT;
}

static int add_site(struct sample_table *t, const struct sample_site *s)
{
	if (sample_grow((void **)&t->site, &t->cap, t->nsites + 1, sizeof(*t->site)))
		return -ENOMEM;
	if (t->nsites && t->site[t->nsites - 1].addr >= s->addr)
		t->sorted = false;
	t->site[t->nsites++] = *s;
	return 0;
}

#define INT3 0xcc

/* The first function start after @addr (func[] sorted), as an index. */
static size_t next_function(const struct sample_table *t, uint64_t addr)
{
	size_t a = 0, b = t->nfunc;

	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (t->func[m] <= addr)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

/* The linear sweep over @len bytes of @code at @addr with the open handle @h. */
static int sweep(struct sample_table *t, csh h, const uint8_t *code, size_t len, uint64_t addr,
		 char *why, size_t whylen)
{
	const uint8_t *p = code;
	size_t left = len, fn = next_function(t, addr);
	uint64_t at = addr;
	cs_insn *in = cs_malloc(h);
	struct sample_site s;
	int rc = 0;

	if (!in) {
		snprintf(why, whylen, "out of memory starting the decoder");
		return -ENOMEM;
	}
	while (left) {
		uint64_t here = at;
		enum sample_skip r;
		size_t pad = 0;

		while (pad < left && p[pad] == INT3)
			pad++;
		if (pad) {
			t->stats.padding_bytes += pad;
			p += pad, left -= pad, at += pad;
			continue;
		}
		t->stats.insns++;
		if (!cs_disasm_iter(h, &p, &left, &at, in)) {
			t->stats.count[SAMPLE_SKIP_UNDECODABLE]++; /* one byte, then try again */
			p++, left--, at++;
			continue;
		}
		while (fn < t->nfunc && t->func[fn] <= here)
			fn++;
		if (fn < t->nfunc && t->func[fn] < at) {
			/* Runs over a function's start: decoding was out of step. */
			t->stats.count[SAMPLE_SKIP_UNDECODABLE]++;
			left += at - t->func[fn];
			p -= at - t->func[fn];
			at = t->func[fn];
			continue;
		}
		r = excluded(t, here, at);
		if (r == SAMPLE_KEPT)
			r = classify(t, in, &s);
		t->stats.count[r]++;
		if (r == SAMPLE_KEPT && add_site(t, &s)) {
			snprintf(why, whylen, "out of memory for site %zu", t->nsites + 1);
			rc = -ENOMEM;
			break;
		}
	}
	cs_free(in, 1);
	return rc;
}

int sample_table_add_code(struct sample_table *t, const uint8_t *code, size_t len, uint64_t addr,
			  char *why, size_t whylen)
{
	csh h;
	int rc;

	if (t->sealed) {
		snprintf(why, whylen, "code added after the draw began");
		return -EINVAL;
	}
	if (t->cover_stale && flatten(t)) {
		snprintf(why, whylen, "out of memory flattening %zu excluded ranges", t->nexcl);
		return -ENOMEM;
	}
	if (t->func_stale) {
		qsort(t->func, t->nfunc, sizeof(*t->func), cmp_u64);
		t->func_stale = false;
	}
	insn_capstone_lock();
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK ||
	    cs_option(h, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK) {
		insn_capstone_unlock();
		snprintf(why, whylen, "capstone cannot decode x86-64");
		return -ENOMEM;
	}
	rc = sweep(t, h, code, len, addr, why, whylen);
	cs_close(&h);
	insn_capstone_unlock();
	t->stats.text_bytes += len;
	return rc;
}

uint64_t sample_site_address(const struct sample_site *s, const uint64_t regs[16], uint64_t rip)
{
	uint64_t ea = (uint64_t)(int64_t)s->disp;

	if (s->base == SAMPLE_REG_RIP)
		ea += rip + s->len;
	else if (s->base != SAMPLE_REG_NONE)
		ea += regs[s->base];
	if (s->index != SAMPLE_REG_NONE)
		ea += regs[s->index] << s->scale_log2;
	if (s->image_disp)
		ea += rip - s->addr; /* the KASLR offset: the image moved as one */
	if (s->bit_reg != SAMPLE_REG_NONE) {
		/* A signed bit offset of the operand's width; the word is floor(offset / bits). */
		unsigned shift = 64 - 8 * sample_site_size(s);
		int64_t off = (int64_t)(regs[s->bit_reg] << shift) >> shift;

		ea += (uint64_t)((off >> (s->size_log2 + 3)) * (int64_t)sample_site_size(s));
	}
	return ea;
}

uint64_t sample_site_global(const struct sample_site *s)
{
	if (!s->global)
		return 0;
	if (s->base == SAMPLE_REG_RIP)
		return s->addr + s->len + (uint64_t)(int64_t)s->disp;
	return (uint64_t)(int64_t)s->disp;
}

static uint32_t le32_at(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

bool sample_bytes_relocated(const uint8_t *have, const uint8_t *want, unsigned len,
			    int64_t offset)
{
	/* The kernel relocates a 32-bit address field modulo 2^32 (R_X86_64_32S). */
	const uint32_t delta = (uint32_t)offset;
	unsigned i, start, done = 0; /* bytes below done are a relocated field's */

	for (i = 0; i < len; i++) {
		bool field = false;

		if (i < done || have[i] == want[i])
			continue;
		if (!delta)
			return false;
		/*
		 * A byte that differs is in a relocated field that starts at
		 * most 3 bytes before it: the field's low bytes may not change
		 * (KASLR moves the kernel by multiples of 2 MiB).
		 */
		for (start = i >= 3 ? i - 3 : 0; start <= i && !field; start++)
			if (start >= done && start + 4 <= len &&
			    le32_at(have + start) == le32_at(want + start) + delta) {
				field = true;
				done = start + 4;
			}
		if (!field)
			return false;
	}
	return true;
}

const struct sample_stats *sample_table_stats(const struct sample_table *t)
{
	return &t->stats;
}

size_t sample_table_count(const struct sample_table *t)
{
	return t->nsites;
}

const struct sample_site *sample_table_site(const struct sample_table *t, size_t i)
{
	return i < t->nsites ? &t->site[i] : NULL;
}

static int cmp_site(const void *a, const void *b)
{
	const struct sample_site *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

void sample_table_sort(struct sample_table *t)
{
	if (!t->sorted)
		qsort(t->site, t->nsites, sizeof(*t->site), cmp_site);
	t->sorted = true;
}

const struct sample_site *sample_table_find(const struct sample_table *t, uint64_t addr)
{
	size_t a = 0, b = t->nsites, i;

	if (!t->sorted) {
		for (i = 0; i < t->nsites; i++)
			if (t->site[i].addr == addr)
				return &t->site[i];
		return NULL;
	}
	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (t->site[m].addr < addr)
			a = m + 1;
		else
			b = m;
	}
	return a < t->nsites && t->site[a].addr == addr ? &t->site[a] : NULL;
}

void sample_table_seal(struct sample_table *t)
{
	struct sample_site *shrunk;

	sample_table_sort(t);
	free(t->excl);
	free(t->cover);
	free(t->func);
	t->excl = t->cover = NULL;
	t->func = NULL;
	t->nexcl = t->excl_cap = t->ncover = t->nfunc = t->func_cap = 0;
	if (t->nsites < t->cap && (shrunk = realloc(t->site, t->nsites * sizeof(*shrunk) + 1))) {
		t->site = shrunk;
		t->cap = t->nsites;
	}
	t->sealed = true;
}

size_t sample_table_bytes(const struct sample_table *t)
{
	return sizeof(*t) + t->cap * sizeof(*t->site) + t->excl_cap * sizeof(*t->excl) +
	       t->ncover * sizeof(*t->cover) + t->func_cap * sizeof(*t->func) +
	       t->nsites * sizeof(*t->order);
}
