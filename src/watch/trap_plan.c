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

void trap_site_code(const struct trap_site *s, uint8_t port, uint8_t out[TRAP_MAX_SITE_LEN])
{
	memset(out, 0x90, TRAP_MAX_SITE_LEN);
	out[0] = TRAP_OUT_OPCODE;
	out[1] = port;
	(void)s;
}

int trap_emulate(const struct trap_site *s, uint64_t regs[16], trap_read_fn read,
		 trap_write_fn write, void *ctx)
{
	unsigned i;
	uint64_t v;

	for (i = 0; i < s->ninsn; i++) {
		const struct trap_insn *t = &s->insn[i];

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
		}
	}
	return 0;
}
