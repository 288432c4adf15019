/* sample_hit.c: a sampled instruction reached: watch its address, hold its vCPU, compare, report.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <string.h>
#include <sys/ioctl.h>

#include <linux/kvm.h>

#include "vmm/base/log.h"
#include "vmm/kvm/guest_mem.h"
#include "vmm/kvm/vcpu.h"
#include "vmm/kvm/vm.h"
#include "vmm/sample/sampler.h"
#include "watch/report_log.h"
#include "watch/sym.h"
#include "watch/unwind.h"

/* Sites found rewritten at a hit that are said one by one; the rest are counted. */
#define SAMPLE_REWRITTEN_SAID 8

/* x86-64 kernel stacks, task and IRQ: 16 KiB, aligned to their size (THREAD_SIZE). */
#define LINUX_STACK_SIZE 0x4000ull
/*
 * The kernel's half of the address space: bit 63 set.  The half begins at
 * 0xffff800000000000 under 4-level paging and at 0xff00000000000000 under
 * 5-level (LA57, which Debian's kernels use where the CPU has it); the
 * bit holds for both.  An address with it set that is not canonical in
 * the guest's mode is not told apart: its instruction is about to fault.
 */
#define LINUX_KERNEL_HALF (1ull << 63)

/* --- how the engine and the reports read a Linux vCPU --------------------- */

static struct sampler *sampler_of(struct vm *vm)
{
	return vm->sample;
}

static uint32_t view_context(struct vcpu *vcpu)
{
	struct sampler *sp = sampler_of(vcpu->vm);

	return sp && sp->have_layout ? linux_view_context(vcpu, &sp->layout) : CSAN_CTX_TASK;
}

static uint32_t view_task_id(struct vcpu *vcpu)
{
	struct sampler *sp = sampler_of(vcpu->vm);

	return sp && sp->have_layout ? linux_view_task_id(vcpu, &sp->layout) : 0;
}

/* A KCSAN kernel's data_race() excuses an access here too: KCSAN's rule. */
static bool view_checking_disabled(struct vcpu *vcpu, uint32_t context)
{
	struct sampler *sp = sampler_of(vcpu->vm);

	return sp && sp->have_layout && linux_view_checking_disabled(vcpu, &sp->layout, context);
}

/* A KCSAN kernel's runtime reads watched values by design: not the other side of a race. */
static bool view_runtime_pc(struct vm *vm, uint64_t pc)
{
	return vm->sym && linux_view_runtime_pc(vm->sym, pc);
}

const struct hw_guest_view sample_view = {
	.context = view_context,
	.task_id = view_task_id,
	.checking_disabled = view_checking_disabled,
	.runtime_pc = view_runtime_pc,
};

/* --- one hit --------------------------------------------------------------- */

/* What one hit found out, for its report. */
struct sample_hit {
	struct sample_site site;
	uint64_t addr; /* the access's linear address */
	uint32_t size, access;
	uint64_t old_value, new_value;
	struct hw_watch_result res;
};

static void regs_to_array(const struct kvm_regs *k, uint64_t a[16])
{
	a[0] = k->rax, a[1] = k->rcx, a[2] = k->rdx, a[3] = k->rbx;
	a[4] = k->rsp, a[5] = k->rbp, a[6] = k->rsi, a[7] = k->rdi;
	a[8] = k->r8, a[9] = k->r9, a[10] = k->r10, a[11] = k->r11;
	a[12] = k->r12, a[13] = k->r13, a[14] = k->r14, a[15] = k->r15;
}

static void count(struct sampler *sp, uint64_t *what)
{
	pthread_mutex_lock(&sp->lock);
	(*what)++;
	pthread_mutex_unlock(&sp->lock);
}

/*
 * The sampled side: the instruction at @rip, not yet run (an execution
 * breakpoint is a fault), with its callers unwound from the registers.
 */
static void sampled_side(struct vcpu *vcpu, const struct sample_hit *h, uint64_t rip,
			 struct csan_report_side *s)
{
	uint64_t pcs[UNWIND_MAX_PCS];
	struct csan_regs regs;
	int i, n = 0;

	*s = (struct csan_report_side){
		.addr = h->addr,
		.size = h->size,
		.access = h->access,
		.cpu = vcpu->id,
		.context = view_context(vcpu),
		.mechanism = CSAN_MECH_SAMPLING,
		.ip = rip,
	};
	s->task_id = s->context == CSAN_CTX_TASK ? view_task_id(vcpu) : 0;
	if (guest_get_regs(vcpu, &regs, NULL) == 0 && vcpu->vm->unw) {
		regs.rip = rip;
		n = unwind_stack(vcpu->vm->unw, &regs, guest_unwind_read, vcpu, 0, pcs,
				 UNWIND_MAX_PCS, NULL);
	}
	/* pcs[0] is the instruction itself; a zero return address ends the stack. */
	for (i = 1; i < n && pcs[i] && s->nret < CSAN_REPORT_MAX_STACK; i++)
		s->ret[s->nret++] = pcs[i];
}

/*
 * The report: both sides when a debug register caught another access
 * (side[0], as KCSAN orders them: the access that ran into the watch),
 * else, when the value changed under the hold with nobody seen, the
 * sampled side alone as a race at unknown origin.  Nothing otherwise.
 */
static void report(struct vcpu *vcpu, struct sampler *sp, const struct sample_hit *h, uint64_t rip)
{
	const struct hw_watch_hit *hit = &h->res.hit;
	struct vm *vm = vcpu->vm;
	struct csan_hc_report r;
	char why[256];

	bool ours_marked, other_marked;

	if (!h->res.have_hit && h->old_value == h->new_value)
		return;
	/*
	 * KCSAN's rule: two marked accesses are no race.  A locked
	 * read-modify-write is marked, and so is an access inlined from an
	 * atomic_t or unlock helper (sample_access_marked): a spinlock's
	 * unlock store against the next locker's cmpxchg is synchronization.
	 */
	ours_marked = vm->sym && sample_access_marked(vm->sym, rip, false);
	other_marked = h->res.have_hit &&
		       ((hit->access & CSAN_ACCESS_ATOMIC) ||
			(vm->sym && sample_access_marked(vm->sym, hit->ip, hit->ip_after)));
	pthread_mutex_lock(&sp->lock);
	if (h->res.have_hit)
		sp->n.trapped++;
	else
		sp->n.changed++;
	if (ours_marked && other_marked)
		sp->n.marked++;
	else
		sp->n.reports++;
	pthread_mutex_unlock(&sp->lock);
	if (ours_marked && other_marked)
		return;
	memset(&r, 0, sizeof(r));
	if (h->res.have_hit) {
		r.kind = CSAN_REPORT_DATA_RACE;
		r.nsides = 2;
		r.side[0] = (struct csan_report_side){
			.addr = hit->addr ? hit->addr : h->addr,
			.size = hit->size ? hit->size : h->size,
			.access = hit->access,
			.cpu = hit->cpu,
			.context = hit->context,
			.task_id = hit->task_id,
			.mechanism = CSAN_MECH_HW_DEBUGREG,
			.flags = hit->ip_after ? CSAN_SIDE_IP_AFTER : 0,
			.ip = hit->ip,
		};
		for (unsigned i = 0; i < hit->nret && hit->ret[i]; i++)
			r.side[0].ret[r.side[0].nret++] = hit->ret[i];
		if (other_marked)
			r.side[0].access |= CSAN_ACCESS_ATOMIC;
		sampled_side(vcpu, h, rip, &r.side[1]);
	} else {
		r.kind = CSAN_REPORT_UNKNOWN_ORIGIN;
		r.nsides = 1;
		sampled_side(vcpu, h, rip, &r.side[0]);
	}
	if (ours_marked)
		r.side[r.nsides - 1].access |= CSAN_ACCESS_ATOMIC;
	if (h->old_value != h->new_value) {
		r.value_flags = CSAN_VALUE_OLD | CSAN_VALUE_NEW;
		r.old_value = h->old_value;
		r.new_value = h->new_value;
	}
	/* At most once per interval per race, as KCSAN limits its own. */
	if (report_log_submit_every(vm->reports, &r, REPORT_LOG_DEFAULT_INTERVAL_MS, why,
				    sizeof(why)) < 0)
		log_error("a sampling report was refused: %s", why);
}

/*
 * The site at run-time address @at, copied, if it is still one to
 * sample; @expect gets the bytes it was decoded from (a module's copy,
 * or the vmlinux's: then *@in_vmlinux).
 */
static bool find_site(struct sampler *sp, uint64_t at, struct sample_site *out, uint8_t *expect,
		      bool *in_vmlinux)
{
	const struct sample_site *s;
	const uint8_t *bytes;
	bool ok;

	pthread_mutex_lock(&sp->lock);
	s = sample_pool_find(sp->pool, at, &bytes);
	ok = s && !s->retired;
	*in_vmlinux = ok && !bytes;
	if (ok && !bytes)
		bytes = sample_expected_bytes(sp, s->addr, s->len);
	ok = ok && bytes;
	if (ok) {
		*out = *s;
		memcpy(expect, bytes, s->len);
	}
	sp->n.hits++;
	if (!ok)
		sp->n.stale++;
	pthread_mutex_unlock(&sp->lock);
	return ok;
}

/*
 * Whether the instruction the vCPU stopped at is still the site's: the
 * guest may have rewritten it since the draw (text poking, a static
 * key), or freed its module and put other code there before the list
 * was read again.  Decoding the operand of other bytes would watch a
 * wrong address; the site is retired instead, and the vCPU resumes.
 */
static bool still_the_site(struct vcpu *vcpu, struct sampler *sp, uint64_t at,
			   const struct sample_site *site, const uint8_t *expect, bool in_vmlinux)
{
	uint8_t have[16];
	uint64_t start = 0, size, nth;
	const char *fn = NULL;

	/* The vmlinux's bytes moved with the kernel (KASLR); a module's copy is the guest's. */
	if (guest_read_linear(vcpu, at, have, site->len) == site->len &&
	    sample_bytes_relocated(have, expect, site->len, in_vmlinux ? sp->virt_off : 0))
		return true;
	pthread_mutex_lock(&sp->lock);
	nth = ++sp->n.hit_rewritten;
	sample_pool_retire(sp->pool, at);
	pthread_mutex_unlock(&sp->lock);
	/* Rare (text poking, a module gone): each said, up to a few, for whoever reads why. */
	if (nth <= SAMPLE_REWRITTEN_SAID) {
		if (vcpu->vm->sym && sym_function_at(vcpu->vm->sym, at, &start, &size, &fn) != 0)
			fn = NULL;
		log_error("sampling: vCPU %u stopped at %#" PRIx64 " (%s+0x%" PRIx64
			  "), whose bytes are no longer the site's: retired, not decoded",
			  vcpu->id, at, fn ? fn : "?", fn ? at - start : 0);
	}
	return false;
}

/*
 * Where the hit's access goes, and whether it is one to watch: not the
 * vCPU's own stack (frame sites of a frame-pointer kernel, and pointers
 * to locals through any register: the thread's own, and a data
 * breakpoint there fires on every interrupt delivery), not a user
 * address, and readable.  Counts why not.
 */
static bool watchable(struct vcpu *vcpu, struct sampler *sp, const struct kvm_regs *k,
		      struct sample_hit *h)
{
	uint64_t regs[16];

	regs_to_array(k, regs);
	h->addr = sample_site_address(&h->site, regs, k->rip);
	h->size = sample_site_size(&h->site);
	if (h->addr - (k->rsp & ~(LINUX_STACK_SIZE - 1)) < LINUX_STACK_SIZE) {
		count(sp, &sp->n.on_stack);
		return false;
	}
	if (!(h->addr & LINUX_KERNEL_HALF)) {
		count(sp, &sp->n.user);
		return false;
	}
	if (guest_read_linear(vcpu, h->addr, &h->old_value, h->size) != h->size) {
		count(sp, &sp->n.unreadable);
		return false;
	}
	return true;
}

/*
 * vcpu_hold_until's end: the watch *@arg has caught the other side.  The
 * hold has then done its work (one report per watch), and the rest of the
 * delay would be overhead only.
 */
static bool watch_caught(struct vcpu *vcpu, void *arg)
{
	return hw_watch_caught(vcpu, *(const uint32_t *)arg);
}

int sample_code_hit(struct vcpu *vcpu, uint64_t addr, void *ctx)
{
	struct sampler *sp = ctx;
	struct sample_hit h;
	struct kvm_regs k;
	uint32_t ticket, status, wsize;
	uint8_t expect[16];
	bool in_vmlinux;
	int rc;

	memset(&h, 0, sizeof(h));
	if (!find_site(sp, addr, &h.site, expect, &in_vmlinux) ||
	    !still_the_site(vcpu, sp, addr, &h.site, expect, in_vmlinux))
		return VCPU_RESUME;
	if (ioctl(vcpu->fd, KVM_GET_REGS, &k) < 0) {
		log_error_errno(errno, "vCPU %u: KVM_GET_REGS at a sampled instruction", vcpu->id);
		vm_end(vcpu->vm, VM_END_HOST_ERROR, 0, 0);
		return VCPU_STOP;
	}
	if (!watchable(vcpu, sp, &k, &h))
		return VCPU_RESUME;
	/* KCSAN's words: a read-modify-write is a compound write. */
	h.access = h.site.write ? CSAN_ACCESS_WRITE | (h.site.read ? CSAN_ACCESS_COMPOUND : 0) : 0;
	/*
	 * A read conflicts with writes only, a write with every access: the
	 * engine arms write-only or read-write breakpoints accordingly.
	 */
	wsize = h.size;
	rc = hw_watch_arm_host(vcpu, h.addr, &wsize, h.access & CSAN_ACCESS_WRITE, &ticket,
			       &status);
	if (rc != VCPU_RESUME)
		return rc;
	if (status != CSAN_HW_ARMED) {
		count(sp, &sp->n.no_slot);
		return VCPU_RESUME;
	}
	count(sp, &sp->n.watches);
	vcpu_hold_until(vcpu, __atomic_load_n(&sp->o.delay_ms, __ATOMIC_RELAXED) * 1000000ull,
			watch_caught, &ticket);
	if (guest_read_linear(vcpu, h.addr, &h.new_value, h.size) != h.size)
		h.new_value = h.old_value;
	rc = hw_watch_disarm(vcpu, ticket, &h.res);
	if (rc == VCPU_STOP)
		return rc;
	if (rc == VCPU_RESUME)
		report(vcpu, sp, &h, k.rip);
	return VCPU_RESUME;
}
