/* trap_plan.c: port-I/O traps planted in a guest function, and what they stand in for. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>

#include "watch/trap_plan.h"

/* A decoded instruction, as much as planning needs. */
struct dec {
	uint64_t addr;
	unsigned len;
	bool emulable; /* with @ti filled */
	bool is_ret;
	bool leaves;	/* a jump out of the function: it cannot be planned */
	bool target;	/* some branch of the function lands here */
	struct trap_insn ti;
	/* For the stack depth (stack_depths): */
	bool falls;	  /* the next instruction can run after this one */
	bool jumps;	  /* a direct jump, taken or not, to jump_to */
	bool sp_unknown;  /* sets %rsp other than by a constant */
	bool calls;	  /* a direct call of call_to */
	bool depth_known; /* depth is the same on every path from the entry */
	int sp_delta;	  /* bytes this instruction pushes or reserves (negative: releases) */
	int depth;	  /* bytes pushed and reserved below the return address, before it runs */
	uint64_t jump_to, call_to;
};

/* A 64-bit general register as its ModRM number, or -1. */
static int gpr64(unsigned reg)
{
	static const unsigned regs[16] = {
		X86_REG_RAX, X86_REG_RCX, X86_REG_RDX, X86_REG_RBX, X86_REG_RSP, X86_REG_RBP,
		X86_REG_RSI, X86_REG_RDI, X86_REG_R8,  X86_REG_R9,  X86_REG_R10, X86_REG_R11,
		X86_REG_R12, X86_REG_R13, X86_REG_R14, X86_REG_R15,
	};
	int i;

	for (i = 0; i < 16; i++)
		if (regs[i] == reg)
			return i;
	return -1;
}

/* Whether @in only moves registers and the stack, and how. */
static bool classify(const cs_insn *in, struct trap_insn *ti)
{
	const cs_x86 *x = &in->detail->x86;
	int a, b;

	memset(ti, 0, sizeof(*ti));
	ti->len = in->size;
	switch (in->id) {
	case X86_INS_NOP: ti->op = TRAP_OP_NOP; return true;
	case X86_INS_LEAVE: ti->op = TRAP_OP_LEAVE; return true;
	case X86_INS_PUSH:
	case X86_INS_POP:
		if (x->op_count != 1 || x->operands[0].type != X86_OP_REG ||
		    (a = gpr64(x->operands[0].reg)) < 0)
			return false;
		ti->op = in->id == X86_INS_PUSH ? TRAP_OP_PUSH : TRAP_OP_POP;
		ti->reg = (unsigned)a;
		return true;
	case X86_INS_MOV:
		if (x->op_count != 2 || x->operands[0].type != X86_OP_REG ||
		    x->operands[1].type != X86_OP_REG || (a = gpr64(x->operands[0].reg)) < 0 ||
		    (b = gpr64(x->operands[1].reg)) < 0)
			return false;
		ti->op = TRAP_OP_MOV;
		ti->reg = (unsigned)a;
		ti->src = (unsigned)b;
		return true;
	default: return false;
	}
}

/* The immediate target of a direct branch, or false. */
static bool branch_target(const cs_insn *in, uint64_t *target)
{
	const cs_x86 *x = &in->detail->x86;
	unsigned i;
	bool branch = false;

	for (i = 0; i < in->detail->groups_count; i++)
		if (in->detail->groups[i] == CS_GRP_JUMP || in->detail->groups[i] == CS_GRP_CALL)
			branch = true;
	if (!branch || x->op_count != 1 || x->operands[0].type != X86_OP_IMM)
		return false;
	*target = (uint64_t)x->operands[0].imm;
	return true;
}

/* What @in does to %rsp and where the code goes on after it, into @d. */
static void stack_effect(csh h, const cs_insn *in, struct dec *d)
{
	const cs_x86 *x = &in->detail->x86;
	cs_regs rd, wr;
	uint8_t nrd, nwr, i;
	uint64_t t;

	d->falls = true;
	switch (in->id) {
	case X86_INS_PUSH:
	case X86_INS_PUSHFQ: d->sp_delta = 8; return;
	case X86_INS_POP:
		if (x->op_count == 1 && x->operands[0].type == X86_OP_REG &&
		    x->operands[0].reg == X86_REG_RSP)
			break;
		/* fall through */
	case X86_INS_POPFQ: d->sp_delta = -8; return;
	case X86_INS_CALL:
		/* The callee returns to the next instruction with %rsp as it was. */
		if (branch_target(in, &t)) {
			d->calls = true;
			d->call_to = t;
		}
		return;
	case X86_INS_RET:
	case X86_INS_UD2:
	case X86_INS_INT3: d->falls = false; return;
	case X86_INS_JMP: d->falls = false; break;
	case X86_INS_SUB:
	case X86_INS_ADD:
		if (x->op_count == 2 && x->operands[0].type == X86_OP_REG &&
		    x->operands[0].reg == X86_REG_RSP && x->operands[1].type == X86_OP_IMM) {
			d->sp_delta = (int)(in->id == X86_INS_SUB ? x->operands[1].imm
								  : -x->operands[1].imm);
			return;
		}
		break;
	default: break;
	}
	if (branch_target(in, &t)) {
		d->jumps = true;
		d->jump_to = t;
	}
	if (cs_regs_access(h, in, rd, &nrd, wr, &nwr) != CS_ERR_OK) {
		d->sp_unknown = true;
		return;
	}
	for (i = 0; i < nwr; i++)
		if (wr[i] == X86_REG_RSP)
			d->sp_unknown = true;
}

static int decode_all(const uint8_t *code, size_t len, uint64_t addr, struct dec **out,
		      size_t *nout, char *why, size_t whylen)
{
	const uint64_t end = addr + len;
	struct dec *d = calloc(len ? len : 1, sizeof(*d));
	size_t n = 0, off = 0, i, j;
	cs_insn *in;
	csh h;

	if (!d || cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK) {
		free(d);
		snprintf(why, whylen, "capstone cannot decode x86-64");
		return -ENOMEM;
	}
	cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
	in = cs_malloc(h);
	while (in && off < len) {
		const uint8_t *p = code + off;
		size_t left = len - off;
		uint64_t a = addr + off, t;

		if (!cs_disasm_iter(h, &p, &left, &a, in)) {
			/* Padding after the last RET (int3s) is not the function's. */
			if (n && d[n - 1].is_ret)
				break;
			snprintf(why, whylen, "cannot decode the instruction at +%#zx", off);
			goto fail;
		}
		d[n].addr = in->address;
		d[n].len = in->size;
		d[n].is_ret = in->id == X86_INS_RET;
		d[n].emulable = classify(in, &d[n].ti);
		stack_effect(h, in, &d[n]);
		if (in->id == X86_INS_JMP && branch_target(in, &t) && (t < addr || t >= end))
			d[n].leaves = true;
		n++;
		off += in->size;
	}
	if (!in) {
		snprintf(why, whylen, "out of memory");
		goto fail;
	}
	/* Mark every direct branch target inside the function. */
	for (i = 0; i < n; i++) {
		const uint8_t *p = code + (d[i].addr - addr);
		size_t left = d[i].len;
		uint64_t a = d[i].addr, t;

		if (!cs_disasm_iter(h, &p, &left, &a, in) || !branch_target(in, &t) ||
		    t < addr || t >= end)
			continue;
		for (j = 0; j < n; j++)
			if (d[j].addr == t)
				d[j].target = true;
	}
	cs_free(in, 1);
	cs_close(&h);
	*out = d;
	*nout = n;
	return 0;
fail:
	if (in)
		cs_free(in, 1);
	cs_close(&h);
	free(d);
	return -EINVAL;
}

/* The instruction of @d[0..@n) at @a, or @n. */
static size_t index_of(const struct dec *d, size_t n, uint64_t a)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d[mid].addr < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && d[lo].addr == a ? lo : n;
}

/* @d's depth is @depth; false when a path already gave it another. */
static bool reach(struct dec *d, int depth, bool *changed)
{
	if (!d->depth_known) {
		d->depth_known = true;
		d->depth = depth;
		*changed = true;
	}
	return d->depth == depth;
}

/*
 * The stack depth before each instruction, followed from the entry
 * (depth 0) along fall-throughs and direct jumps until nothing changes;
 * an instruction reached only through an %rsp the code sets otherwise
 * (or an indirect jump) stays unknown.  -EINVAL with the place in @why
 * when two paths reach one instruction at different depths.
 */
static int stack_depths(struct dec *d, size_t n, uint64_t addr, char *why, size_t whylen)
{
	bool changed = n > 0;
	size_t i, t;

	if (n) {
		d[0].depth_known = true;
		d[0].depth = 0;
	}
	while (changed) {
		changed = false;
		for (i = 0; i < n; i++) {
			int out = d[i].depth + d[i].sp_delta;

			if (!d[i].depth_known || d[i].sp_unknown)
				continue;
			t = i + 1;
			if (d[i].falls && t < n && !reach(&d[t], out, &changed))
				goto differ;
			t = d[i].jumps ? index_of(d, n, d[i].jump_to) : n;
			if (t < n && !reach(&d[t], out, &changed))
				goto differ;
		}
	}
	return 0;
differ:
	snprintf(why, whylen, "paths reach +%#llx with different stack depths",
		 (unsigned long long)(d[t].addr - addr));
	return -EINVAL;
}

/* Instructions @first..@last (emulable, whole) as site @s. */
static void make_site(const struct dec *d, size_t first, size_t last, const uint8_t *code,
		      uint64_t addr, struct trap_site *s)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	s->addr = d[first].addr;
	for (i = first; i <= last; i++) {
		s->insn[s->ninsn++] = d[i].ti;
		s->len += d[i].len;
	}
	memcpy(s->orig, code + (s->addr - addr), s->len);
}

/* Whether @t writes one of the argument registers %rdi, %rsi, %rdx, %rcx. */
static bool writes_argument(const struct trap_insn *t)
{
	if (t->op != TRAP_OP_POP && t->op != TRAP_OP_MOV)
		return false;
	return t->reg == 7 || t->reg == 6 || t->reg == 2 || t->reg == 1;
}

int trap_plan_function(const uint8_t *code, size_t len, uint64_t addr, struct trap_plan *out,
		       char *why, size_t whylen)
{
	struct dec *d;
	size_t n, i, k, j;
	int rc = decode_all(code, len, addr, &d, &n, why, whylen);

	if (rc)
		return rc;
	memset(out, 0, sizeof(*out));
	rc = -EINVAL;
	for (i = 0; i < n; i++)
		if (d[i].leaves) {
			snprintf(why, whylen, "it jumps out at +%#llx (a tail call: its end cannot be seen)",
				 (unsigned long long)(d[i].addr - addr));
			goto out;
		}
	/*
	 * Entry: the first TRAP_LEN-byte instruction of the prologue, with
	 * the arguments still in their registers and no branch back to it
	 * (it must run once per call).
	 */
	for (i = 0; i < n && d[i].emulable && !writes_argument(&d[i].ti); i++)
		if (d[i].len == TRAP_LEN && !d[i].target)
			break;
	if (i == n || !d[i].emulable || d[i].len != TRAP_LEN || d[i].target ||
	    writes_argument(&d[i].ti)) {
		snprintf(why, whylen,
			 "its prologue has no %d-byte push or register move before the arguments "
			 "are moved",
			 TRAP_LEN);
		goto out;
	}
	make_site(d, i, i, code, addr, &out->entry);
	/* The prologue up to it runs straight, in that order: its depth is their sum. */
	for (k = 0; k < i; k++) {
		if (d[k].sp_unknown) {
			snprintf(why, whylen, "its prologue sets %%rsp at +%#llx",
				 (unsigned long long)(d[k].addr - addr));
			goto out;
		}
		out->entry.depth += (unsigned)d[k].sp_delta;
	}
	/*
	 * Before each RET: the last TRAP_LEN-byte instruction of the
	 * epilogue's pops, with no branch landing after it (a path that
	 * skipped it would leave without the exit being seen).
	 */
	for (k = 0; k < n; k++) {
		if (!d[k].is_ret)
			continue;
		if (out->nexits == TRAP_MAX_EXITS) {
			snprintf(why, whylen, "it has more than %d returns", TRAP_MAX_EXITS);
			goto out;
		}
		if (d[k].target) {
			snprintf(why, whylen, "a branch lands on its return at +%#llx",
				 (unsigned long long)(d[k].addr - addr));
			goto out;
		}
		for (j = k; j > 0 && d[j - 1].emulable && !d[j].target; j--)
			if (d[j - 1].len == TRAP_LEN)
				break;
		if (j == 0 || d[j].target || !d[j - 1].emulable || d[j - 1].len != TRAP_LEN) {
			snprintf(why, whylen,
				 "no %d-byte pop in the epilogue before its return at +%#llx", TRAP_LEN,
				 (unsigned long long)(d[k].addr - addr));
			goto out;
		}
		make_site(d, j - 1, j - 1, code, addr, &out->exit[out->nexits++]);
	}
	if (!out->nexits) {
		snprintf(why, whylen, "it has no return");
		goto out;
	}
	rc = 0;
out:
	free(d);
	return rc;
}

int trap_plan_call(const uint8_t *code, size_t len, uint64_t addr, uint64_t callee,
		   struct trap_site *out, char *why, size_t whylen)
{
	struct dec *d;
	size_t n, i, at = 0, calls = 0;
	int rc = decode_all(code, len, addr, &d, &n, why, whylen);

	if (rc)
		return rc;
	memset(out, 0, sizeof(*out));
	for (i = 0; i < n; i++)
		if (d[i].calls && d[i].call_to == callee && !calls++)
			at = i;
	rc = -EINVAL;
	if (!calls) {
		snprintf(why, whylen, "no call of %#llx", (unsigned long long)callee);
		rc = -ENOENT;
	} else if (calls > 1) {
		snprintf(why, whylen, "%zu calls of %#llx", calls, (unsigned long long)callee);
	} else if (d[at].len < TRAP_LEN || d[at].len > TRAP_MAX_SITE_LEN) {
		snprintf(why, whylen, "its call at +%#llx is %u bytes long",
			 (unsigned long long)(d[at].addr - addr), d[at].len);
	} else if (stack_depths(d, n, addr, why, whylen) == 0) {
		if (!d[at].depth_known) {
			snprintf(why, whylen,
				 "the stack depth at its call at +%#llx cannot be followed from the "
				 "entry",
				 (unsigned long long)(d[at].addr - addr));
		} else {
			out->addr = d[at].addr;
			out->len = d[at].len;
			out->depth = (unsigned)d[at].depth;
			out->ninsn = 1;
			out->insn[0] = (struct trap_insn){
				.op = TRAP_OP_CALL, .len = d[at].len, .target = callee
			};
			memcpy(out->orig, code + (d[at].addr - addr), d[at].len);
			rc = 0;
		}
	}
	free(d);
	return rc;
}

void trap_site_code(const struct trap_site *s, uint8_t port, uint8_t out[TRAP_MAX_SITE_LEN])
{
	memset(out, 0x90, TRAP_MAX_SITE_LEN);
	out[0] = TRAP_OUT_OPCODE;
	out[1] = port;
	(void)s;
}

int trap_emulate(const struct trap_site *s, uint64_t regs[16], uint64_t *rip, trap_read_fn read,
		 trap_write_fn write, void *ctx)
{
	uint64_t v, next = s->addr;
	unsigned i;

	for (i = 0; i < s->ninsn; i++) {
		const struct trap_insn *t = &s->insn[i];

		next += t->len;
		switch (t->op) {
		case TRAP_OP_NOP: break;
		case TRAP_OP_PUSH:
			/* push %rsp pushes its value from before the push. */
			v = regs[t->reg];
			if (!write(ctx, regs[TRAP_REG_RSP] - 8, v))
				return -EFAULT;
			regs[TRAP_REG_RSP] -= 8;
			break;
		case TRAP_OP_POP:
			if (!read(ctx, regs[TRAP_REG_RSP], &v))
				return -EFAULT;
			regs[TRAP_REG_RSP] += 8;
			regs[t->reg] = v; /* pop %rsp: the value read wins */
			break;
		case TRAP_OP_MOV: regs[t->reg] = regs[t->src]; break;
		case TRAP_OP_LEAVE:
			regs[TRAP_REG_RSP] = regs[TRAP_REG_RBP];
			if (!read(ctx, regs[TRAP_REG_RSP], &v))
				return -EFAULT;
			regs[TRAP_REG_RSP] += 8;
			regs[TRAP_REG_RBP] = v;
			break;
		case TRAP_OP_CALL:
			if (!write(ctx, regs[TRAP_REG_RSP] - 8, next))
				return -EFAULT;
			regs[TRAP_REG_RSP] -= 8;
			*rip = t->target;
			break;
		}
	}
	return 0;
}
