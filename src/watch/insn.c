/* insn.c: the instruction that made a data access, recovered from a debug trap's RIP. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <capstone/capstone.h>

#include "watch/insn.h"
#include "watch/insn_rules.h"

/* Stack slots are 8 bytes in 64-bit mode, 2 with an operand-size prefix. */
#define STACK_SLOT	  8
#define STACK_SLOT_OPSIZE 2

/*
 * A handle per call: cs_open costs a few microseconds against the tens a
 * debug exit already takes (decoding is one at a time anyway, see
 * insn_before_trap).
 */
static int open_x86_64(csh *h, char *why, size_t whylen)
{
	cs_err e = cs_open(CS_ARCH_X86, CS_MODE_64, h);

	if (e == CS_ERR_OK)
		e = cs_option(*h, CS_OPT_DETAIL, CS_OPT_ON);
	if (e != CS_ERR_OK) {
		snprintf(why, whylen, "capstone cannot decode x86-64: %s", cs_strerror(e));
		return e == CS_ERR_MEM ? -ENOMEM : -EINVAL;
	}
	return 0;
}

/* Instructions with a memory operand that reads and writes nothing there. */
bool insn_touches_no_memory(unsigned id)
{
	switch (id) {
	case X86_INS_LEA:
	case X86_INS_NOP: /* the multi-byte NOP's operand is only padding */
	case X86_INS_PREFETCH:
	case X86_INS_PREFETCHNTA:
	case X86_INS_PREFETCHT0:
	case X86_INS_PREFETCHT1:
	case X86_INS_PREFETCHT2:
	case X86_INS_PREFETCHW: return true;
	default: return false;
	}
}

/*
 * The access of memory operand @op of @insn.  Capstone 4's flags are
 * right for ordinary instructions but not for these: it marks TEST's
 * operand as written and CMPXCHG's as only read.  CMPXCHG writes even
 * when the comparison fails (SDM Vol. 2A, CMPXCHG: the old value is
 * written back), and anything LOCKed or XCHG with memory is a locked
 * read-modify-write.  An operand capstone leaves unmarked is taken as
 * read, the weaker claim.
 */
void insn_operand_access(const cs_insn *insn, const cs_x86_op *op, struct insn_access *a)
{
	const cs_x86 *x = &insn->detail->x86;

	a->where = INSN_MEM_OPERAND;
	a->size = op->size;
	a->read = op->access & CS_AC_READ;
	a->write = op->access & CS_AC_WRITE;
	switch (insn->id) {
	case X86_INS_TEST:
	case X86_INS_CMP:
	case X86_INS_BT:
		a->read = true;
		a->write = false;
		break;
	case X86_INS_CMPXCHG:
	case X86_INS_CMPXCHG8B:
	case X86_INS_CMPXCHG16B:
	case X86_INS_XCHG: a->read = a->write = true; break;
	default: break;
	}
	if (x->prefix[0] == X86_PREFIX_LOCK)
		a->read = a->write = true;
	if (!a->read && !a->write)
		a->read = true;
}

/*
 * The implicit stack access of @insn: 1 write (push, call, enter), -1
 * read (pop, ret, leave), 0 none.
 */
int insn_stack_direction(unsigned id)
{
	switch (id) {
	case X86_INS_PUSH:
	case X86_INS_PUSHF:
	case X86_INS_PUSHFD:
	case X86_INS_PUSHFQ:
	case X86_INS_CALL:
	case X86_INS_ENTER: return 1;
	case X86_INS_POP:
	case X86_INS_POPF:
	case X86_INS_POPFD:
	case X86_INS_POPFQ:
	case X86_INS_RET:
	case X86_INS_LEAVE: return -1;
	default: return 0;
	}
}

bool insn_is_locked_rmw(const cs_insn *insn)
{
	const cs_x86 *x = &insn->detail->x86;
	unsigned i;

	if (x->prefix[0] == X86_PREFIX_LOCK)
		return true;
	if (insn->id != X86_INS_XCHG)
		return false;
	for (i = 0; i < x->op_count; i++)
		if (x->operands[i].type == X86_OP_MEM)
			return true;
	return false;
}

static void add_access(struct insn_info *out, const struct insn_access *a)
{
	if (out->naccesses == INSN_MAX_ACCESSES)
		return; /* no instruction has more; see INSN_MAX_ACCESSES */
	out->accesses[out->naccesses++] = *a;
	out->reads |= a->read;
	out->writes |= a->write;
	if (!out->mem_size)
		out->mem_size = a->size;
}

/* Fill @out from decoded @insn. */
static void describe(const cs_insn *insn, struct insn_info *out)
{
	const cs_x86 *x = &insn->detail->x86;
	struct insn_access a;
	int dir = insn_stack_direction(insn->id);
	unsigned i;

	memset(out, 0, sizeof(*out));
	out->addr = insn->address;
	out->len = insn->size;
	snprintf(out->text, sizeof(out->text), "%s%s%s", insn->mnemonic, insn->op_str[0] ? " " : "",
		 insn->op_str);
	out->atomic = insn_is_locked_rmw(insn);
	if (insn_touches_no_memory(insn->id))
		return;
	for (i = 0; i < x->op_count; i++) {
		if (x->operands[i].type != X86_OP_MEM)
			continue;
		insn_operand_access(insn, &x->operands[i], &a);
		add_access(out, &a);
	}
	if (dir) {
		a = (struct insn_access){
			.where = INSN_MEM_STACK,
			.read = dir<0, .write = dir> 0,
			.size = x->prefix[2] == X86_PREFIX_OPSIZE ? STACK_SLOT_OPSIZE : STACK_SLOT,
		};
		add_access(out, &a);
	}
}

/*
 * Decode forward from code->addr; 0 when an instruction ends exactly at
 * @rip (in @out), else -ENOENT with where the decoding stopped.
 */
static int decode_forward(csh h, const struct insn_code *code, uint64_t rip, struct insn_info *out,
			  char *why, size_t whylen)
{
	const uint8_t *p = code->bytes;
	size_t left = rip - code->addr;
	uint64_t at = code->addr;
	cs_insn *insn = cs_malloc(h);

	if (!insn) {
		snprintf(why, whylen, "out of memory decoding code at 0x%llx",
			 (unsigned long long)at);
		return -ENOMEM;
	}
	while (left && cs_disasm_iter(h, &p, &left, &at, insn)) {
		if (at == rip) {
			describe(insn, out);
			out->how = INSN_FORWARD;
			cs_free(insn, 1);
			return 0;
		}
	}
	cs_free(insn, 1);
	snprintf(why, whylen,
		 "decoding forward from 0x%llx stopped at 0x%llx, %llu bytes before RIP 0x%llx "
		 "(data in code, or not an instruction boundary)",
		 (unsigned long long)code->addr, (unsigned long long)at,
		 (unsigned long long)(rip - at), (unsigned long long)rip);
	return -ENOENT;
}

/*
 * Try each start in the INSN_MAX_LEN bytes before @rip; accept the one
 * instruction with a memory access that ends at @rip.  Prefixes make
 * several common (48 89 07 and its tail 89 07 both end there), and then
 * the answer is unknown, not the likelier one.
 */
static int decode_backward(csh h, const struct insn_code *code, uint64_t rip, struct insn_info *out,
			   char *why, size_t whylen)
{
	uint64_t before = rip - code->addr;
	unsigned off, found = 0, max = before < INSN_MAX_LEN ? (unsigned)before : INSN_MAX_LEN;
	struct insn_info cand, first = { 0 };
	cs_insn *insn;

	for (off = 1; off <= max; off++) {
		size_t n = cs_disasm(h, code->bytes + (before - off), off, rip - off, 1, &insn);

		if (n == 1 && insn->size == off) {
			describe(insn, &cand);
			if (cand.naccesses) {
				cand.how = INSN_BACKWARD;
				if (found++ == 0)
					first = cand;
				*out = cand;
			}
		}
		if (n)
			cs_free(insn, n);
	}
	if (found == 1)
		return 0;
	if (found == 0)
		snprintf(why, whylen,
			 "unknown instruction: no instruction with a memory access ends at RIP "
			 "0x%llx in the %u bytes "
			 "before it",
			 (unsigned long long)rip, max);
	else
		snprintf(why, whylen,
			 "unknown instruction: %u instructions with a memory access end at RIP "
			 "0x%llx (such as '%s' at "
			 "0x%llx and '%s' at 0x%llx); give the function start to tell them apart",
			 found, (unsigned long long)rip, first.text, (unsigned long long)first.addr,
			 out->text, (unsigned long long)out->addr);
	return -ENOENT;
}

static int decode_before_trap(const struct insn_code *code, uint64_t rip, struct insn_info *out,
			      char *why, size_t whylen)
{
	char fwd_why[256] = "";
	csh h;
	int rc;

	memset(out, 0, sizeof(*out));
	if (rip < code->addr || rip - code->addr > code->len) {
		snprintf(why, whylen, "RIP 0x%llx is outside the code given (0x%llx, %zu bytes)",
			 (unsigned long long)rip, (unsigned long long)code->addr, code->len);
		return -EINVAL;
	}
	if (rip == code->addr) {
		snprintf(
			why, whylen,
			"unknown instruction: RIP 0x%llx is where the code starts, so it is a "
			"branch target (a call or jmp through memory, a ret), not after the access",
			(unsigned long long)rip);
		return -ENOENT;
	}
	rc = open_x86_64(&h, why, whylen);
	if (rc)
		return rc;
	if (code->addr_is_start) {
		rc = decode_forward(h, code, rip, out, fwd_why, sizeof(fwd_why));
		if (rc == 0 && !out->naccesses) {
			/* Certain, but not an access: the trap came from elsewhere. */
			snprintf(why, whylen,
				 "unknown instruction: the one ending at RIP 0x%llx ('%s' at "
				 "0x%llx) "
				 "does not access memory, so RIP is a branch target",
				 (unsigned long long)rip, out->text, (unsigned long long)out->addr);
			memset(out, 0, sizeof(*out));
			rc = -ENOENT;
			goto out;
		}
		if (rc != -ENOENT)
			goto out;
	}
	rc = decode_backward(h, code, rip, out, why, whylen);
	if (rc && fwd_why[0]) {
		size_t n = strlen(why);

		snprintf(why + n, whylen > n ? whylen - n : 0, "; %s", fwd_why);
	}
	if (rc)
		memset(out, 0, sizeof(*out));
out:
	cs_close(&h);
	return rc;
}

/*
 * Capstone 4 is not safe for two threads decoding at once, even on
 * handles of their own: its x86 module sorts lookup tables lazily, on
 * first use, in globals (ThreadSanitizer caught two vCPU threads there).
 * Decoding is short next to the debug exit it serves: one at a time.
 */
static pthread_mutex_t capstone_lock = PTHREAD_MUTEX_INITIALIZER;

void insn_capstone_lock(void)
{
	pthread_mutex_lock(&capstone_lock);
}

void insn_capstone_unlock(void)
{
	pthread_mutex_unlock(&capstone_lock);
}

int insn_before_trap(const struct insn_code *code, uint64_t rip, struct insn_info *out, char *why,
		     size_t whylen)
{
	int rc;

	insn_capstone_lock();
	rc = decode_before_trap(code, rip, out, why, whylen);
	insn_capstone_unlock();
	return rc;
}
