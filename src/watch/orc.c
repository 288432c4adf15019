/* orc.c: a Linux guest's stack from its ORC unwind tables (CONFIG_UNWINDER_ORC). */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "watch/orc.h"

/* Base registers of struct orc_entry's sp_reg and bp_reg (orc_types.h). */
enum orc_reg {
	ORC_REG_UNDEFINED = 0,
	ORC_REG_PREV_SP = 1,
	ORC_REG_DX = 2,
	ORC_REG_DI = 3,
	ORC_REG_BP = 4,
	ORC_REG_SP = 5,
	ORC_REG_R10 = 6,
	ORC_REG_R13 = 7,
	ORC_REG_BP_INDIRECT = 8,
	ORC_REG_SP_INDIRECT = 9,
};

/* One entry's frame kind, the same for both formats once decoded. */
enum orc_kind {
	ORC_KIND_UNDEFINED, /* no information: an unwind through it is an error */
	ORC_KIND_END,	    /* the end of the stack */
	ORC_KIND_CALL,	    /* the return address is just below the caller's SP */
	ORC_KIND_REGS,	    /* the caller's SP points at a full struct pt_regs */
	ORC_KIND_PARTIAL,   /* ... at the iret frame (ip, cs, flags, sp, ss) only */
	ORC_KIND_BAD,	    /* a type this reader does not know */
};

/* struct orc_entry's bit-fields (little-endian), per format. */
#define ORC_SP_REG(f)	 ((f)&0xfu)
#define ORC_BP_REG(f)	 (((f) >> 4) & 0xfu)
#define ORC_V1_TYPE(f)	 (((f) >> 8) & 0x3u)
#define ORC_V1_END(f)	 (((f) >> 10) & 0x1u)
#define ORC_V2_TYPE(f)	 (((f) >> 8) & 0x7u)
#define ORC_V2_SIGNAL(f) (((f) >> 11) & 0x1u)
#define ORC_ENTRY_SIZE	 6

/*
 * struct pt_regs (arch/x86/include/asm/ptrace.h), in words: a REGS frame
 * holds all of it, a REGS_PARTIAL frame's SP points at its ip field.
 */
enum pt_word {
	PT_R13 = 2,
	PT_BP = 4,
	PT_R10 = 7,
	PT_DX = 12,
	PT_DI = 14,
	PT_IP = 16,
	PT_CS = 17,
	PT_SP = 19,
	PT_WORDS = 21,
};
#define PT_IRET_OFFSET (PT_IP * 8) /* offsetof(struct pt_regs, ip) */

/* Bounds against a corrupt or hostile guest stack. */
#define ORC_READ_BUDGET	   4096
#define ORC_MAX_CALL_FRAME (64u * 1024) /* one call frame's span on a stack */

struct orc_row {
	uint64_t ip;
	int16_t sp_off, bp_off;
	uint8_t sp_reg, bp_reg;
	uint8_t kind;	/* enum orc_kind */
	bool signal;	/* the next IP found is not a return address */
	uint32_t order; /* position in the section: keeps the sort stable */
};

struct orc_table {
	struct orc_row *rows;
	size_t n;
	enum orc_format fmt;
	uint64_t text_end; /* IPs at or above it have no entry */
	int64_t offset;	   /* orc_set_offset(): where the guest runs the code */
};

static uint16_t le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static int32_t le32s(const unsigned char *p)
{
	return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
			 (uint32_t)p[3] << 24);
}

/* Decode one 6-byte entry into @r; the two formats mean the same things. */
static void decode_entry(const unsigned char *e, enum orc_format fmt, struct orc_row *r)
{
	uint16_t f = le16(e + 4);
	static const uint8_t v1_kinds[4] = { ORC_KIND_CALL, ORC_KIND_REGS, ORC_KIND_PARTIAL,
					     ORC_KIND_BAD };
	static const uint8_t v2_kinds[8] = { ORC_KIND_UNDEFINED, ORC_KIND_END,	   ORC_KIND_CALL,
					     ORC_KIND_REGS,	 ORC_KIND_PARTIAL, ORC_KIND_BAD,
					     ORC_KIND_BAD,	 ORC_KIND_BAD };

	r->sp_off = (int16_t)le16(e);
	r->bp_off = (int16_t)le16(e + 2);
	r->sp_reg = ORC_SP_REG(f);
	r->bp_reg = ORC_BP_REG(f);
	if (fmt == ORC_FORMAT_V2) {
		r->kind = v2_kinds[ORC_V2_TYPE(f)];
		r->signal = ORC_V2_SIGNAL(f);
	} else if (r->sp_reg == ORC_REG_UNDEFINED) {
		/* V1 marks both "no information" and "end" by an undefined SP. */
		r->kind = ORC_V1_END(f) ? ORC_KIND_END : ORC_KIND_UNDEFINED;
	} else {
		r->kind = v1_kinds[ORC_V1_TYPE(f)];
	}
	/* An IP found through a pt_regs frame was interrupted, not called from. */
	if (r->kind == ORC_KIND_REGS || r->kind == ORC_KIND_PARTIAL)
		r->signal = true;
}

static int row_cmp(const void *a, const void *b)
{
	const struct orc_row *x = a, *y = b;

	if (x->ip != y->ip)
		return x->ip < y->ip ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The table for @n entries: IP i is @ips[i] if given, else from @ip_sec at @ip_addr. */
static int table_new(const uint64_t *abs_ips, const unsigned char *ips, uint64_t ip_addr,
		     const unsigned char *orcs, size_t n, enum orc_format fmt, uint64_t text_end,
		     struct orc_table **out)
{
	struct orc_table *t;
	size_t i;

	*out = NULL;
	if (!n || n > UINT32_MAX)
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t || !(t->rows = calloc(n, sizeof(*t->rows)))) {
		free(t);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct orc_row *r = &t->rows[i];

		/* Each IP is relative to where its own 4 bytes are. */
		r->ip = abs_ips ? abs_ips[i]
				: ip_addr + 4 * i + (uint64_t)(int64_t)le32s(ips + 4 * i);
		r->order = (uint32_t)i;
		decode_entry(orcs + ORC_ENTRY_SIZE * i, fmt, r);
	}
	/* Linux sorts them at build time (sorttable); a table that is not
	 * sorted must still be searchable. */
	qsort(t->rows, n, sizeof(*t->rows), row_cmp);
	t->n = n;
	t->fmt = fmt;
	t->text_end = text_end ? text_end : UINT64_MAX;
	*out = t;
	return 0;
}

int orc_table_new(const void *ip_sec, uint64_t ip_addr, const void *orc_sec, size_t n,
		  enum orc_format fmt, uint64_t text_end, struct orc_table **out)
{
	return table_new(NULL, ip_sec, ip_addr, orc_sec, n, fmt, text_end, out);
}

int orc_table_from_ips(const uint64_t *ips, const void *entries, size_t n, enum orc_format fmt,
		       uint64_t text_end, struct orc_table **out)
{
	return table_new(ips, NULL, 0, entries, n, fmt, text_end, out);
}

enum orc_format orc_table_format(const struct orc_table *t)
{
	return t->fmt;
}

void orc_free(struct orc_table *t)
{
	if (!t)
		return;
	free(t->rows);
	free(t);
}

void orc_set_offset(struct orc_table *t, int64_t offset)
{
	if (t)
		__atomic_store_n(&t->offset, offset, __ATOMIC_RELEASE);
}

size_t orc_entries(const struct orc_table *t)
{
	return t ? t->n : 0;
}

/* The entry covering @ip: the last one whose IP is not above it. */
static const struct orc_row *find_row(const struct orc_table *t, uint64_t ip)
{
	size_t lo = 0, hi = t->n;

	ip -= (uint64_t)__atomic_load_n(&t->offset, __ATOMIC_ACQUIRE);
	if (ip < t->rows[0].ip || ip >= t->text_end)
		return NULL;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].ip <= ip)
			lo = mid;
		else
			hi = mid;
	}
	return &t->rows[lo];
}

bool orc_covers(const struct orc_table *t, uint64_t ip)
{
	return t && find_row(t, ip) != NULL;
}

/* --- loading from the vmlinux --------------------------------------------- */

/* The named section of @elf, or NULL. */
static Elf_Scn *find_section(Elf *elf, size_t shstrndx, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *n;

		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && strcmp(n, name) == 0)
			return scn;
	}
	return NULL;
}

/* Where the kernel's code ends: the end of its last executable section. */
static uint64_t text_end_of(Elf *elf)
{
	Elf_Scn *scn = NULL;
	uint64_t end = 0;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)) != NULL)
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR) &&
		    (sh.sh_flags & SHF_ALLOC) && sh.sh_addr + sh.sh_size > end)
			end = sh.sh_addr + sh.sh_size;
	return end;
}

/* orc_load's work on an open ELF. */
static int load_elf(Elf *elf, const char *path, struct orc_table **out, char *why, size_t whylen)
{
	GElf_Shdr ip_sh, orc_sh, hdr_sh;
	Elf_Data *ipd, *orcd;
	Elf_Scn *ip_scn, *orc_scn;
	size_t shstrndx, n;
	enum orc_format fmt;
	int rc;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0) {
		snprintf(why, whylen, "%s: elf_getshdrstrndx: %s", path, elf_errmsg(-1));
		return -EINVAL;
	}
	ip_scn = find_section(elf, shstrndx, ".orc_unwind_ip", &ip_sh);
	if (!ip_scn)
		return 0; /* not an ORC kernel */
	orc_scn = find_section(elf, shstrndx, ".orc_unwind", &orc_sh);
	ipd = elf_getdata(ip_scn, NULL);
	orcd = orc_scn ? elf_getdata(orc_scn, NULL) : NULL;
	if (!ipd || !orcd || !ipd->d_buf || !orcd->d_buf || ipd->d_size % 4 ||
	    ipd->d_size / 4 != orcd->d_size / ORC_ENTRY_SIZE || orcd->d_size % ORC_ENTRY_SIZE ||
	    !ipd->d_size) {
		snprintf(why, whylen,
			 "%s: .orc_unwind_ip and .orc_unwind are missing, empty or of different "
			 "lengths; rebuild the kernel (objtool writes them)",
			 path);
		return -EINVAL;
	}
	n = ipd->d_size / 4;
	fmt = find_section(elf, shstrndx, ".orc_header", &hdr_sh) ? ORC_FORMAT_V2 : ORC_FORMAT_V1;
	rc = orc_table_new(ipd->d_buf, ip_sh.sh_addr, orcd->d_buf, n, fmt, text_end_of(elf), out);
	if (rc)
		snprintf(why, whylen, "%s: out of memory for %zu ORC entries", path, n);
	return rc;
}

int orc_load(const char *path, struct orc_table **out, char *why, size_t whylen)
{
	int fd, rc;
	Elf *elf;

	*out = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		snprintf(why, whylen, "libelf: %s", elf_errmsg(-1));
		return -EINVAL;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		snprintf(why, whylen, "cannot open %s: %s", path, strerror(-rc));
		return rc;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf) {
		snprintf(why, whylen, "%s: elf_begin: %s", path, elf_errmsg(-1));
		close(fd);
		return -EINVAL;
	}
	rc = load_elf(elf, path, out, why, whylen);
	elf_end(elf);
	close(fd);
	return rc;
}

/* --- the walk --------------------------------------------------------------- */

/* One frame's state, as unwind_orc.c's struct unwind_state keeps it. */
struct orc_state {
	uint64_t ip, sp, bp;
	bool signal; /* ip is exact (the trap, an interrupted IP), not a return address */
	/*
	 * Registers other than ip, sp and bp are known only at the trap and
	 * after a pt_regs frame; a call frame loses them, an iret frame keeps
	 * the last full set (the kernel's prev_regs).
	 */
	bool regs_known;
	uint64_t r10, r13, di, dx, regs_bp;
	unwind_read_fn read;
	void *ctx;
	orc_more_fn more;
	void *more_ctx;
	unsigned reads_left;
	struct orc_result *res;
};

static bool fail(struct orc_state *s, enum orc_end end, const char *fmt, unsigned long long a)
{
	s->res->end = end;
	snprintf(s->res->why, sizeof(s->res->why), fmt, a);
	return false;
}

static bool rd(struct orc_state *s, uint64_t addr, uint64_t *val)
{
	if (!s->reads_left)
		return fail(s, ORC_END_ERROR, "read budget spent (at %#llx)", addr);
	s->reads_left--;
	if (!s->read(s->ctx, addr, val))
		return fail(s, ORC_END_ERROR, "guest memory at %#llx is not readable", addr);
	return true;
}

/* The register @reg names, when this frame still knows it. */
static bool reg_value(struct orc_state *s, unsigned reg, uint64_t *v)
{
	if (!s->regs_known)
		return false;
	switch (reg) {
	case ORC_REG_R10: *v = s->r10; return true;
	case ORC_REG_R13: *v = s->r13; return true;
	case ORC_REG_DI: *v = s->di; return true;
	case ORC_REG_DX: *v = s->dx; return true;
	}
	return false;
}

/* The caller's stack pointer (ORC's "previous SP", DWARF's CFA) into *@cfa. */
static bool find_cfa(struct orc_state *s, const struct orc_row *o, uint64_t *cfa)
{
	switch (o->sp_reg) {
	case ORC_REG_SP: *cfa = s->sp + (int64_t)o->sp_off; return true;
	case ORC_REG_BP: *cfa = s->bp + (int64_t)o->sp_off; return true;
	case ORC_REG_SP_INDIRECT:
		/* The SP was saved at [sp]; the offset applies after loading it. */
		if (!rd(s, s->sp, cfa))
			return false;
		*cfa += (int64_t)o->sp_off;
		return true;
	case ORC_REG_BP_INDIRECT: return rd(s, s->bp + (int64_t)o->sp_off, cfa);
	case ORC_REG_R10:
	case ORC_REG_R13:
	case ORC_REG_DI:
	case ORC_REG_DX:
		/* As unwind_orc.c does: the register is the CFA, no offset. */
		if (reg_value(s, o->sp_reg, cfa))
			return true;
		return fail(s, ORC_END_ERROR, "the SP is in a register lost by now (ORC reg %llu)",
			    o->sp_reg);
	}
	return fail(s, ORC_END_ERROR, "unknown ORC SP base register %llu", o->sp_reg);
}

/* A full struct pt_regs at @at: the interrupted frame, all its registers. */
static bool take_pt_regs(struct orc_state *s, uint64_t at, uint64_t *cs)
{
	uint64_t w[PT_WORDS];
	unsigned i;

	for (i = 0; i < PT_WORDS; i++)
		if (!rd(s, at + 8 * i, &w[i]))
			return false;
	s->ip = w[PT_IP];
	s->sp = w[PT_SP];
	s->regs_bp = w[PT_BP];
	s->r10 = w[PT_R10];
	s->r13 = w[PT_R13];
	s->di = w[PT_DI];
	s->dx = w[PT_DX];
	s->regs_known = true;
	*cs = w[PT_CS];
	return true;
}

/*
 * One step to the caller of @s's frame, as unwind_next_frame does.
 * Returns true with the caller in @s, false with @s->res saying why not.
 */
/* The entry for @ip in @t, or in the table @s->more gives for it. */
static const struct orc_row *find_any(const struct orc_table *t, const struct orc_state *s,
				      uint64_t ip)
{
	const struct orc_row *o = find_row(t, ip);
	const struct orc_table *more;

	if (!o && s->more && (more = s->more(s->more_ctx, ip)) != NULL)
		o = find_row(more, ip);
	return o;
}

static bool step(const struct orc_table *t, struct orc_state *s)
{
	const struct orc_row *o = find_any(t, s, s->signal ? s->ip : s->ip - 1);
	uint64_t cfa, prev_sp = s->sp, cs = 0, v;
	bool bp_from_regs = false;

	if (!o)
		return fail(s, ORC_END_NO_ORC, "no ORC entry for %#llx", s->ip);
	switch (o->kind) {
	case ORC_KIND_END: s->res->end = ORC_END_STACK; return false;
	case ORC_KIND_UNDEFINED:
		return fail(s, ORC_END_ERROR, "ORC has no information for %#llx", s->ip);
	case ORC_KIND_BAD: return fail(s, ORC_END_ERROR, "unknown ORC entry type at %#llx", s->ip);
	}
	if (!find_cfa(s, o, &cfa))
		return false;
	switch (o->kind) {
	case ORC_KIND_CALL:
		if (!rd(s, cfa - 8, &s->ip))
			return false;
		/* A call frame lies above its callee's SP, never far: else the
		 * table or the stack is not what we think. */
		if (cfa <= prev_sp || cfa - prev_sp > ORC_MAX_CALL_FRAME)
			return fail(s, ORC_END_ERROR, "stack going the wrong way at %#llx", cfa);
		s->sp = cfa;
		s->regs_known = false;
		s->signal = o->signal;
		break;
	case ORC_KIND_REGS:
		if (!take_pt_regs(s, cfa, &cs))
			return false;
		s->signal = true;
		bp_from_regs = true;
		break;
	default: /* ORC_KIND_PARTIAL: the iret frame only */
		if (!rd(s, cfa, &s->ip) || !rd(s, cfa + 8, &cs) || !rd(s, cfa + 24, &s->sp))
			return false;
		s->signal = true;
		bp_from_regs = s->regs_known;
		break;
	}
	if (cs & 3) {
		s->res->end = ORC_END_USER;
		return false;
	}
	switch (o->bp_reg) {
	case ORC_REG_UNDEFINED:
		/* Unchanged by this frame, or restored with the registers. */
		if (bp_from_regs)
			s->bp = s->regs_bp;
		break;
	case ORC_REG_PREV_SP:
		if (!rd(s, cfa + (int64_t)o->bp_off, &v))
			return false;
		s->bp = v;
		break;
	case ORC_REG_BP:
		if (!rd(s, s->bp + (int64_t)o->bp_off, &v))
			return false;
		s->bp = v;
		break;
	default: return fail(s, ORC_END_ERROR, "unknown ORC BP base register %llu", o->bp_reg);
	}
	return true;
}

int orc_unwind(const struct orc_table *t, const struct csan_regs *regs, unwind_read_fn read,
	       void *ctx, orc_more_fn more, void *more_ctx, uint64_t *pcs, unsigned max,
	       struct orc_result *res)
{
	struct orc_result scratch;
	struct orc_state s = {
		.ip = regs ? regs->rip : 0,
		.sp = regs ? regs->rsp : 0,
		.bp = regs ? regs->rbp : 0,
		.signal = true, /* the trap's IP is the instruction itself */
		.regs_known = true,
		.r10 = regs ? regs->r10 : 0,
		.r13 = regs ? regs->r13 : 0,
		.di = regs ? regs->rdi : 0,
		.dx = regs ? regs->rdx : 0,
		.regs_bp = regs ? regs->rbp : 0,
		.read = read,
		.ctx = ctx,
		.more = more,
		.more_ctx = more_ctx,
		.reads_left = ORC_READ_BUDGET,
		.res = res ? res : &scratch,
	};
	const struct orc_row *first;
	unsigned n = 0;

	if (!t || !regs || !read || !pcs || max < 1)
		return -EINVAL;
	memset(s.res, 0, sizeof(*s.res));
	/* Nothing to say about the IP itself: leave it to another unwinder. */
	first = find_any(t, &s, regs->rip);
	if (!first || first->kind == ORC_KIND_UNDEFINED)
		return 0;
	pcs[n++] = regs->rip;
	while (n < max) {
		if (!step(t, &s))
			return (int)n;
		pcs[n++] = s.ip;
	}
	s.res->end = ORC_END_FULL;
	return (int)n;
}
