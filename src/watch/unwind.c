/* unwind.c: a guest stack from a vCPU's registers, by CFI or frame pointers. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdwfl.h>

#include "watch/kmod.h"
#include "watch/orc.h"
#include "watch/sym.h"
#include "watch/unwind.h"

/* The one thread of the attached "process": whichever vCPU is unwound. */
#define UNWIND_TID 1

/*
 * Bounds against a guest stack that is corrupt or hostile: reads per
 * unwind, the largest frame and the deepest stack a frame-pointer walk
 * accepts.  Kernel stacks are a few pages, so these are generous.
 */
#define UNWIND_READ_BUDGET  4096
#define UNWIND_FP_MAX_FRAME (64u * 1024)
#define UNWIND_FP_MAX_SPAN  (1024u * 1024)

/* DWARF register numbers of %rbp and %rsp (x86-64 psABI, table 3.36). */
#define DWARF_REG_RBP 6
#define DWARF_REG_RSP 7
#define DWARF_NREGS   17 /* rax..r15 and the return address column, rip */

struct unwinder {
	struct sym *sym;
	struct orc_table *orc; /* the kernel's ORC tables, NULL without them */
	/* One unwind_stack call's state, under the sym lock. */
	const struct csan_regs *regs;
	unwind_read_fn read;
	void *ctx;
	unsigned reads_left;
	bool read_failed;
	uint64_t bad_addr;
	uint64_t *pcs;
	unsigned n, max;
	/* The last frame libdw recovered: where a frame-pointer walk resumes. */
	bool rbp_known, rsp_known;
	uint64_t rbp, rsp;
};

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	if (*thread_argp)
		return 0;
	*thread_argp = arg;
	return UNWIND_TID;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	if (tid != UNWIND_TID)
		return false;
	*thread_argp = arg;
	return true;
}

/* Guest memory, through the VMM's translation; false stops the unwind. */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct unwinder *u = arg;
	uint64_t v;

	if (!u->reads_left)
		return false;
	u->reads_left--;
	if (!u->read(u->ctx, addr, &v)) {
		u->read_failed = true;
		u->bad_addr = addr;
		return false;
	}
	*result = v;
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	const struct csan_regs *r = ((struct unwinder *)arg)->regs;
	/* DWARF order (psABI table 3.36): note rdx and rcx before rbx. */
	const Dwarf_Word regs[DWARF_NREGS] = {
		r->rax, r->rdx, r->rcx, r->rbx, r->rsi, r->rdi, r->rbp, r->rsp, r->r8,
		r->r9,	r->r10, r->r11, r->r12, r->r13, r->r14, r->r15, r->rip,
	};

	if (!dwfl_thread_state_registers(thread, 0, DWARF_NREGS, regs))
		return false;
	dwfl_thread_state_register_pc(thread, r->rip);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

int unwind_new(struct sym *sym, struct unwinder **out, char *why, size_t whylen)
{
	struct unwinder *u = calloc(1, sizeof(*u));
	Dwfl *dwfl;
	bool ok;

	*out = NULL;
	if (!u) {
		snprintf(why, whylen, "out of memory for the unwinder");
		return -ENOMEM;
	}
	u->sym = sym;
	/*
	 * A kernel built with the ORC unwinder keeps no frame pointers and
	 * its assembly has no CFI: its own tables are the one way to walk
	 * its stacks, so they are read once here and used first.
	 */
	if (orc_load(sym_path(sym), &u->orc, why, whylen) < 0) {
		free(u);
		return -EINVAL;
	}
	/* NULL ELF: libdw takes the architecture (its Ebl) from the module. */
	dwfl = sym_dwfl_lock(sym);
	ok = dwfl_attach_state(dwfl, NULL, UNWIND_TID, &thread_callbacks, u);
	if (!ok)
		snprintf(why, whylen, "dwfl_attach_state(%s): %s", sym_path(sym), dwfl_errmsg(-1));
	sym_dwfl_unlock(sym);
	if (!ok) {
		orc_free(u->orc);
		free(u);
		return -EINVAL;
	}
	*out = u;
	return 0;
}

void unwind_set_image_offset(struct unwinder *unw, int64_t offset)
{
	if (unw)
		orc_set_offset(unw->orc, offset);
}

void unwind_free(struct unwinder *unw)
{
	if (unw)
		orc_free(unw->orc);
	free(unw);
}

bool unwind_has_orc(const struct unwinder *unw)
{
	return unw && unw->orc;
}

/* Collect one PC per frame; remember the registers a fallback needs. */
static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct unwinder *u = arg;
	Dwarf_Addr pc;
	Dwarf_Word v;

	if (!dwfl_frame_pc(state, &pc, NULL))
		return DWARF_CB_ABORT;
	u->pcs[u->n++] = pc;
	u->rbp_known = dwfl_frame_reg(state, DWARF_REG_RBP, &v) == 0;
	u->rbp = v;
	u->rsp_known = dwfl_frame_reg(state, DWARF_REG_RSP, &v) == 0;
	u->rsp = v;
	return u->n < u->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

unsigned unwind_fp(uint64_t rbp, uint64_t lo, unwind_read_fn read, void *ctx, uint64_t *pcs,
		   unsigned max)
{
	uint64_t prev = lo, next, ra;
	unsigned n = 0;

	while (n < max) {
		if (!rbp || (rbp & 7) || rbp < lo || rbp - lo > UNWIND_FP_MAX_SPAN)
			break;
		if (n && (rbp <= prev || rbp - prev > UNWIND_FP_MAX_FRAME))
			break;
		if (!read(ctx, rbp + 8, &ra) || !read(ctx, rbp, &next) || !ra)
			break;
		pcs[n++] = ra;
		prev = rbp;
		rbp = next;
	}
	return n;
}

/* libdw's CFI unwind into u->pcs, the sym lock held; fills @info's CFI fields. */
static void unwind_cfi(struct unwinder *u, Dwfl *dwfl, struct unwind_info *info)
{
	int rc = dwfl_getthread_frames(dwfl, UNWIND_TID, frame_cb, u);

	/*
	 * libdw 0.188 takes a return address it cannot read for the end of
	 * the stack and returns 0: a failed read is an early stop all the
	 * same.  Its message would not name the address, so say it here.
	 */
	if (u->read_failed && rc != DWARF_CB_ABORT)
		snprintf(info->cfi_error, sizeof(info->cfi_error),
			 "guest memory at %#llx is not readable", (unsigned long long)u->bad_addr);
	else if (rc == -1)
		snprintf(info->cfi_error, sizeof(info->cfi_error), "dwfl_getthread_frames: %s",
			 dwfl_errmsg(-1));
	info->cfi_frames = u->n;
	if (u->n)
		info->how |= UNWIND_USED_CFI;
}

/* unwind_stack's work, with the sym lock held: it also guards @u's state. */
static unsigned unwind_locked(struct unwinder *u, Dwfl *dwfl, unsigned flags,
			      struct unwind_info *info)
{
	const struct csan_regs *regs = u->regs;
	uint64_t rbp = regs->rbp, lo = regs->rsp;
	struct orc_result orc;
	bool resume = true;
	unsigned got;
	int n;

	/*
	 * ORC first on a kernel that has it, whatever @flags say: there the
	 * frame pointer is a general register.  Code the tables do not
	 * cover (a module's, generated code) goes the other ways.
	 */
	if (u->orc && (n = orc_unwind(u->orc, regs, u->read, u->ctx, kmod_orc_at, u->sym, u->pcs,
				      u->max, &orc)) > 0) {
		info->how |= UNWIND_USED_ORC;
		info->orc_frames = (unsigned)n;
		if (orc.end == ORC_END_NO_ORC || orc.end == ORC_END_ERROR)
			snprintf(info->orc_error, sizeof(info->orc_error), "%s", orc.why);
		u->n = (unsigned)n;
		return u->n;
	}
	if (!(flags & UNWIND_FP_ONLY)) {
		unwind_cfi(u, dwfl, info);
		/* A clean end, or full: nothing left for the frame pointers. */
		resume = info->cfi_error[0] && u->n < u->max;
		if (u->n) {
			resume = resume && u->rbp_known;
			rbp = u->rbp;
			lo = u->rsp_known ? u->rsp : 0;
		}
	}
	if (!u->n)
		u->pcs[u->n++] = regs->rip;
	if (resume) {
		got = unwind_fp(rbp, lo, u->read, u->ctx, u->pcs + u->n, u->max - u->n);
		if (got)
			info->how |= UNWIND_USED_FP;
		u->n += got;
	}
	return u->n;
}

/* One walk; kmod_refresh may have changed what the next one finds. */
static unsigned unwind_once(struct unwinder *unw, const struct csan_regs *regs,
			    unwind_read_fn read, void *ctx, unsigned flags, uint64_t *pcs,
			    unsigned max, struct unwind_info *info)
{
	unsigned n;
	Dwfl *dwfl;

	memset(info, 0, sizeof(*info));
	dwfl = sym_dwfl_lock(unw->sym);
	/* Field by field: unw->sym is read unlocked by every caller. */
	unw->regs = regs;
	unw->read = read;
	unw->ctx = ctx;
	unw->reads_left = UNWIND_READ_BUDGET;
	unw->read_failed = unw->rbp_known = unw->rsp_known = false;
	unw->pcs = pcs;
	unw->n = 0;
	unw->max = max;
	n = unwind_locked(unw, dwfl, flags, info);
	sym_dwfl_unlock(unw->sym);
	return n;
}

/* Whether a PC of @pcs is in no function the host knows: maybe a module's. */
static bool unknown_pc(struct sym *sym, const uint64_t *pcs, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (!kmod_pc_known(sym, pcs[i]))
			return true;
	return false;
}

int unwind_stack(struct unwinder *unw, const struct csan_regs *regs, unwind_read_fn read, void *ctx,
		 unsigned flags, uint64_t *pcs, unsigned max, struct unwind_info *info)
{
	struct unwind_info scratch;
	unsigned n;

	if (!unw || !regs || !read || !pcs || max < 1 || max > UNWIND_MAX_PCS)
		return -EINVAL;
	if (!info)
		info = &scratch;
	n = unwind_once(unw, regs, read, ctx, flags, pcs, max, info);
	/*
	 * A Linux guest's module code: learn where the guest has its modules
	 * (from its memory, so here, with the vCPU stopped) and walk again,
	 * now with their ORC tables; the report's symbolization follows the
	 * same map later.
	 */
	if (sym_modules(unw->sym) && unknown_pc(unw->sym, pcs, n) &&
	    kmod_refresh(unw->sym, read, ctx) > 0)
		n = unwind_once(unw, regs, read, ctx, flags, pcs, max, info);
	return (int)n;
}

int unwind_fill_side(struct unwinder *unw, const struct csan_regs *regs, unwind_read_fn read,
		     void *ctx, unsigned flags, struct csan_report_side *side)
{
	uint64_t pcs[UNWIND_MAX_PCS];
	int n = unwind_stack(unw, regs, read, ctx, flags, pcs, UNWIND_MAX_PCS, NULL);

	if (n < 0)
		return n;
	side->ip = pcs[0];
	side->nret = (uint32_t)(n - 1);
	memcpy(side->ret, pcs + 1, (size_t)(n - 1) * sizeof(pcs[0]));
	side->mechanism = CSAN_MECH_HOST_UNWIND;
	side->flags &= ~CSAN_SIDE_IP_AFTER;
	return 0;
}
