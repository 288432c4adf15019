/* linux_watch.c: hw mode for a stock Linux KCSAN: its watchpoints followed from the host. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include <linux/kvm.h>

#include "vmm/dev/serial.h"
#include "vmm/base/clock.h"
#include "vmm/base/log.h"
#include "vmm/image/elf_guest.h"
#include "vmm/kvm/guest_mem.h"
#include "vmm/hwwatch/hw_watch.h"
#include "vmm/guest/linux/linux_guest.h"
#include "vmm/guest/linux/linux_view.h"
#include "vmm/guest/linux/linux_watch.h"
#include "vmm/kvm/bus.h"
#include "vmm/kvm/vcpu.h"
#include "vmm/kvm/vm.h"
#include "watch/arm_budget.h"
#include "watch/report_log.h"
#include "watch/sym.h"
#include "watch/trap_plan.h"
#include "watch/unwind.h"

/*
 * Linux's KCSAN, like the bundled runtime, sets up a soft watchpoint and
 * delays the access (kernel/kcsan/core.c, kcsan_setup_watchpoint(ptr,
 * size, type, ip)).  A stock kernel makes no hypercall there, so the host
 * plants port-I/O traps at that function's entry and before its return
 * (trap_plan.h says why traps and not int3 or an execution breakpoint:
 * all four debug registers stay for data).  At the entry trap the
 * arguments are in %rdi, %rsi, %edx, %rcx (the x86-64 calling
 * convention), and the host notes the watchpoint.  A third trap stands
 * on KCSAN's call of its delay (a call site, trap_plan.h), after KCSAN
 * has read the watched value: there the watch engine arms the range on
 * every vCPU.  Arming there and not at the entry matters: arming takes
 * milliseconds nested under TCG, and a racing write caught by a debug
 * register before KCSAN's read would leave KCSAN seeing no change (its
 * "old" value already the new one), so Linux's own report, and the
 * KUnit case waiting for it, would be lost.  At the exit trap the host
 * disarms, and a hit becomes a report with both stacks: the watcher's
 * unwound at its exit trap (its callers' frames are the same as at the
 * access), the other side's at the debug trap.
 *
 * Linux prints its own report for the same race from inside that
 * function, before the exit trap, when it saw the race itself: then the
 * two are one race, printed once, seen by both.  A Linux report printed
 * while a host watch of its address is live waits for the watch's end; a
 * host report waits LW_MERGE_MS for a Linux report printed late (by
 * another CPU holding the console).
 */

/* The port of the traps; the RIP, not the port, says a write is a trap. */
#define LW_PORT 0xe5
/* Watches one vCPU has live at once: a task's, and interrupts' on top. */
#define LW_NEST 4
/* Reports waiting for their other half. */
#define LW_WAITING	  16
#define LW_MERGE_MS	  500
#define LW_REPORT_ONCE_MS 3000
/* How often the supervisor looks at the budget and the waiting reports. */
#define LW_TICK_MS 10

/*
 * Arming and disarming make every vCPU load the registers: tens of
 * microseconds on KVM, about 10 ms nested under TCG (docs/BENCHMARKS.md).
 * Backing every KCSAN watchpoint there would stop the guest most of the
 * time, and KCSAN's own time-bounded waits (its delay, KUnit's wait for a
 * report) would run out in stopped time.  So a watchpoint is backed only
 * while arming and disarming take under LW_BUDGET_PCT percent of wall
 * time, the reserve kept for shared data (src/watch/arm_budget.h); the
 * others run as KCSAN's alone, counted.  On KVM the budget lets nearly
 * all through.
 */
#define LW_BUDGET_PCT	   20
#define LW_BUDGET_BURST_MS 50

/*
 * How long a watcher whose watch saw its value change with no debug
 * register hit stays in KCSAN's delay, with the registers armed, for the
 * writer to write again (delay_return): long enough for a writer's vCPU
 * to be scheduled in the emulated host, short beside the KUnit case's
 * wait.
 */
#define LW_SECOND_LOOK_MS 50

/* KCSAN's watched accesses use csan's access bits (include/linux/kcsan-checks.h). */
_Static_assert(CSAN_ACCESS_WRITE == 1 && CSAN_ACCESS_COMPOUND == 2 && CSAN_ACCESS_ATOMIC == 4 &&
		       CSAN_ACCESS_ASSERT == 8 && CSAN_ACCESS_SCOPED == 16,
	       "KCSAN_ACCESS_* bits");

/* x86-64 kernel stacks: 16 KiB, aligned to their size (THREAD_SIZE; the IRQ stacks too). */
#define LINUX_THREAD_SIZE 0x4000ull

struct lw_live {
	uint64_t rsp;	/* after the entry site's push, as before the exit site's pop */
	uint64_t frame; /* %rsp at the call's start (at its return address) */
	uint64_t addr;
	uint32_t size, type, ticket, context, task_id;
	bool pending; /* not yet at KCSAN's delay, where it is armed */
	bool armed;
	bool value_known; /* @old read at the delay trap, before any arming */
	bool in_delay;	  /* its delay returns to the delay trap (delay_return) */
	bool late;	  /* armed as its delay returned, the value having changed */
	bool missed;	  /* armed, yet its value changed with no hit: delayed again */
	uint64_t old;
	uint64_t delay_rsp; /* %rsp at the delay trap, as it is again on the return */
	uint64_t delay_arg; /* the delay's argument (%rdi), for calling it again */
	uint64_t look_until_ns; /* a second look (delay_return) goes on until then */
};

struct lw_waiting {
	bool used;
	bool console; /* Linux's report, held for a live watch; else a host report */
	unsigned cpu;
	uint64_t addr, size, deadline_ns;
	struct csan_hc_report r;
};

struct linux_watch {
	struct vm *vm;
	struct trap_plan plan;
	/* KCSAN's call of its delay, where watches are armed; else at the entry. */
	struct trap_site delay;
	bool has_delay;
	uint64_t fn, fn_size;
	struct linux_layout layout; /* where Linux keeps what the view reads */
	/*
	 * Each vCPU's live watches: written by that vCPU's thread, depth[]
	 * under the lock (the exit traps stay while any is live), read by
	 * the console's thread to hold a Linux report.
	 */
	struct lw_live live[CSAN_MAX_CPUS][LW_NEST];
	unsigned depth[CSAN_MAX_CPUS];
	pthread_mutex_t lock; /* depth[], waiting[], the traps' state, the budget, the counters */
	struct lw_waiting waiting[LW_WAITING];
	uint64_t entries, armed, not_armed, too_deep, lost_frames, reports, merged;
	uint64_t over_budget; /* watchpoints left to KCSAN alone by the time budget */
	uint64_t favoured;    /* backed from the budget's reserve for shared data */
	uint64_t on_stack;    /* watchpoints on the watcher's own stack, left to KCSAN */
	uint64_t not_delayed; /* calls KCSAN ended before its delay: no watchpoint set */
	uint64_t late, late_caught; /* unbacked watches whose value changed, armed then; caught */
	uint64_t missed, missed_caught; /* backed ones whose value changed unseen, delayed again; caught */
	struct arm_budget budget;
	/*
	 * The traps are in the guest's text.  A PVH vmlinux is in place
	 * before it boots; a bzImage's kernel only once its decompressor
	 * has written it there, so they go in at the first exit from its
	 * text (plant_when_in_place), under the lock.
	 */
	bool planted;
};

static struct linux_watch *the_watch(struct vm *vm)
{
	return linux_guest_watch(vm);
}

/* --- reading Linux, for the watch engine (linux_view.h) ------------------ */

static bool read_u64(void *ctx, uint64_t gva, uint64_t *v)
{
	return guest_read_linear(ctx, gva, v, sizeof(*v)) == sizeof(*v);
}

static bool write_u64(void *ctx, uint64_t gva, uint64_t v)
{
	return guest_write_linear(ctx, gva, &v, sizeof(v)) == sizeof(v);
}

static uint32_t lw_context(struct vcpu *vcpu)
{
	struct linux_watch *lw = the_watch(vcpu->vm);

	return lw ? linux_view_context(vcpu, &lw->layout) : CSAN_CTX_TASK;
}

static uint32_t lw_task_id(struct vcpu *vcpu)
{
	struct linux_watch *lw = the_watch(vcpu->vm);

	return lw ? linux_view_task_id(vcpu, &lw->layout) : 0;
}

static bool lw_checking_disabled(struct vcpu *vcpu, uint32_t context)
{
	struct linux_watch *lw = the_watch(vcpu->vm);

	return lw && linux_view_checking_disabled(vcpu, &lw->layout, context);
}

static bool lw_runtime_pc(struct vm *vm, uint64_t pc)
{
	return vm->sym && linux_view_runtime_pc(vm->sym, pc);
}

static const struct hw_guest_view linux_view = {
	.context = lw_context,
	.task_id = lw_task_id,
	.checking_disabled = lw_checking_disabled,
	.runtime_pc = lw_runtime_pc,
};

/* --- reports ------------------------------------------------------------- */

/*
 * @pcs[0..n) as a report side's stack: the frames of KCSAN's runtime
 * dropped, as Linux's report drops them, the first one left as the
 * access (a return address).
 */
static void fill_stack(struct vm *vm, const uint64_t *pcs, int n, struct csan_report_side *s)
{
	int i = 0;

	while (i < n && lw_runtime_pc(vm, pcs[i] + 1))
		i++;
	if (i >= n)
		return;
	s->ip = pcs[i++];
	s->flags = CSAN_SIDE_IP_AFTER;
	for (; i < n && pcs[i] && s->nret < CSAN_REPORT_MAX_STACK; i++)
		s->ret[s->nret++] = pcs[i];
}

static bool overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

/*
 * Into the report log: Linux's own reports (alone or merged) every time,
 * as KCSAN printed them; the host's alone at most once per
 * LW_REPORT_ONCE_MS per race, as KCSAN limits its own
 * (CONFIG_KCSAN_REPORT_ONCE_IN_MS), the rest counted.
 */
static void submit_every(struct vm *vm, const struct csan_hc_report *r, unsigned interval_ms)
{
	char why[256];

	if (report_log_submit_every(vm->reports, r, interval_ms, why, sizeof(why)) < 0)
		log_error("a hardware-watch report was refused: %s", why);
}

static void submit(struct vm *vm, const struct csan_hc_report *r)
{
	submit_every(vm, r, 0);
}

/*
 * @con (Linux's report) and @hw (the host's, for the same watch) as one:
 * Linux's two stacks when it saw both sides, the racing side then marked
 * as seen by the debug register too; the host's two stacks when Linux
 * saw only a changed value (unknown origin), with Linux's values.
 */
static void merge(const struct csan_hc_report *con, const struct csan_hc_report *hw,
		  struct csan_hc_report *out)
{
	if (con->kind == CSAN_REPORT_UNKNOWN_ORIGIN || con->nsides < 2) {
		*out = *hw;
		out->value_flags = con->value_flags;
		out->old_value = con->old_value;
		out->new_value = con->new_value;
		out->mask = con->mask;
		return;
	}
	*out = *con;
	out->side[0].mechanism = CSAN_MECH_SOFT_AND_HW;
}

/* Waiting reports whose time is up, submitted; under lw->lock. */
static void flush_due(struct linux_watch *lw, uint64_t now, bool all)
{
	unsigned i;

	for (i = 0; i < LW_WAITING; i++) {
		struct lw_waiting *w = &lw->waiting[i];

		if (!w->used || (!all && now < w->deadline_ns))
			continue;
		w->used = false;
		submit_every(lw->vm, &w->r, w->console ? 0 : LW_REPORT_ONCE_MS);
	}
}

static struct lw_waiting *free_waiting(struct linux_watch *lw)
{
	unsigned i;

	for (i = 0; i < LW_WAITING; i++)
		if (!lw->waiting[i].used)
			return &lw->waiting[i];
	return NULL;
}

bool linux_watch_console_report(struct vm *vm, struct linux_watch *lw,
				const struct csan_hc_report *r)
{
	const struct csan_report_side *s = &r->side[r->nsides ? r->nsides - 1 : 0];
	struct csan_hc_report both;
	struct lw_waiting *w;
	unsigned i, cpu, d;
	bool taken = false;

	pthread_mutex_lock(&lw->lock);
	flush_due(lw, clock_now_ns(), false);
	/* A host report of the same address waiting: one race. */
	for (i = 0; i < LW_WAITING && !taken; i++) {
		w = &lw->waiting[i];
		if (!w->used || w->console || !overlap(w->addr, w->size, s->addr, s->size))
			continue;
		w->used = false;
		merge(r, &w->r, &both);
		lw->merged++;
		submit(vm, &both);
		taken = true;
	}
	/*
	 * A host watch of the address still live: hold Linux's report until
	 * it ends.  depth[] changes under this lock; an entry's fields are
	 * its vCPU's, written before it arms (armed is the last).  A watch
	 * ending meanwhile finds the held report under the lock or, if it
	 * looked before, leaves it to the deadline.
	 */
	for (cpu = 0; cpu < vm->ncpus && cpu < CSAN_MAX_CPUS && !taken; cpu++)
		for (d = 0; d < __atomic_load_n(&lw->depth[cpu], __ATOMIC_ACQUIRE) && !taken; d++) {
			const struct lw_live *l = &lw->live[cpu][d];

			if (!l->armed || !overlap(l->addr, l->size, s->addr, s->size) ||
			    !(w = free_waiting(lw)))
				continue;
			*w = (struct lw_waiting){
				.used = true,
				.console = true,
				.cpu = cpu,
				.addr = s->addr,
				.size = s->size,
				.deadline_ns = clock_now_ns() + LW_MERGE_MS * 1000000ull,
				.r = *r,
			};
			taken = true;
		}
	pthread_mutex_unlock(&lw->lock);
	return taken;
}

/* The watch @l of @vcpu ended with @res: report what it caught. */
static void watch_ended(struct vcpu *vcpu, struct linux_watch *lw, const struct lw_live *l,
			const struct hw_watch_result *res)
{
	struct vm *vm = vcpu->vm;
	struct csan_hc_report r, both;
	struct csan_report_side *hit = &r.side[0], *me = &r.side[1];
	uint64_t pcs[UNWIND_MAX_PCS];
	struct csan_regs regs;
	struct lw_waiting *w, *held = NULL;
	int n = 0;
	unsigned i;

	pthread_mutex_lock(&lw->lock);
	for (i = 0; i < LW_WAITING && !held; i++)
		if (lw->waiting[i].used && lw->waiting[i].console &&
		    lw->waiting[i].cpu == vcpu->id &&
		    overlap(lw->waiting[i].addr, lw->waiting[i].size, l->addr, l->size))
			held = &lw->waiting[i];
	if (held && !res->have_hit) {
		held->used = false;
		submit(vm, &held->r);
	}
	pthread_mutex_unlock(&lw->lock);
	if (!res->have_hit)
		return;

	memset(&r, 0, sizeof(r));
	r.kind = (l->type & CSAN_ACCESS_ASSERT) ? CSAN_REPORT_ASSERT : CSAN_REPORT_DATA_RACE;
	r.nsides = 2;
	*hit = (struct csan_report_side){
		.addr = res->hit.addr ? res->hit.addr : l->addr,
		.size = res->hit.size ? res->hit.size : l->size,
		.access = res->hit.access,
		.cpu = res->hit.cpu,
		.context = res->hit.context,
		.task_id = res->hit.task_id,
		.mechanism = CSAN_MECH_HW_DEBUGREG,
		.flags = res->hit.ip_after ? CSAN_SIDE_IP_AFTER : 0,
		.ip = res->hit.ip,
	};
	/* A frame-pointer walk can end in a zero return address: the stack ends there. */
	for (i = 0; i < res->hit.nret && res->hit.ret[i]; i++)
		hit->ret[hit->nret++] = res->hit.ret[i];
	*me = (struct csan_report_side){
		.addr = l->addr,
		.size = l->size,
		.access = l->type & CSAN_ACCESS_KNOWN,
		.cpu = vcpu->id,
		.context = l->context,
		.task_id = l->task_id,
		.mechanism = CSAN_MECH_SOFT_WATCH,
	};
	/* The watcher's callers are where they were at its access. */
	if (guest_get_regs(vcpu, &regs, NULL) == 0 && vm->unw)
		n = unwind_stack(vm->unw, &regs, guest_unwind_read, vcpu, UNWIND_FP_ONLY, pcs,
				 UNWIND_MAX_PCS, NULL);
	fill_stack(vm, pcs, n, me);
	if (!me->ip) {
		pthread_mutex_lock(&lw->lock);
		lw->lost_frames++;
		pthread_mutex_unlock(&lw->lock);
		return;
	}

	pthread_mutex_lock(&lw->lock);
	lw->reports++;
	if (held) {
		held->used = false;
		merge(&held->r, &r, &both);
		lw->merged++;
		submit(vm, &both);
	} else if ((w = free_waiting(lw))) {
		*w = (struct lw_waiting){
			.used = true,
			.cpu = vcpu->id,
			.addr = l->addr,
			.size = l->size,
			.deadline_ns = clock_now_ns() + LW_MERGE_MS * 1000000ull,
			.r = r,
		};
	} else {
		submit_every(vm, &r, LW_REPORT_ONCE_MS);
	}
	flush_due(lw, clock_now_ns(), false);
	pthread_mutex_unlock(&lw->lock);
}

/* --- the traps ------------------------------------------------------------ */

static void regs_to_array(const struct kvm_regs *k, uint64_t a[16])
{
	a[0] = k->rax, a[1] = k->rcx, a[2] = k->rdx, a[3] = k->rbx;
	a[4] = k->rsp, a[5] = k->rbp, a[6] = k->rsi, a[7] = k->rdi;
	a[8] = k->r8, a[9] = k->r9, a[10] = k->r10, a[11] = k->r11;
	a[12] = k->r12, a[13] = k->r13, a[14] = k->r14, a[15] = k->r15;
}

static void array_to_regs(const uint64_t a[16], struct kvm_regs *k)
{
	k->rax = a[0], k->rcx = a[1], k->rdx = a[2], k->rbx = a[3];
	k->rsp = a[4], k->rbp = a[5], k->rsi = a[6], k->rdi = a[7];
	k->r8 = a[8], k->r9 = a[9], k->r10 = a[10], k->r11 = a[11];
	k->r12 = a[12], k->r13 = a[13], k->r14 = a[14], k->r15 = a[15];
}

/* Do what the site replaced; false (said, run ended) when it cannot be done. */
static bool emulate(struct vcpu *vcpu, const struct trap_site *s, struct kvm_regs *k)
{
	uint64_t a[16], rip = k->rip;

	regs_to_array(k, a);
	if (trap_emulate(s, a, &rip, read_u64, write_u64, vcpu) == 0) {
		array_to_regs(a, k);
		k->rip = rip;
		if (ioctl(vcpu->fd, KVM_SET_REGS, k) == 0)
			return true;
	}
	log_error("vCPU %u: cannot do the instructions the KCSAN trap at %#" PRIx64
		  " replaced (stack at %#llx unreadable)",
		  vcpu->id, s->addr, (unsigned long long)k->rsp);
	vm_end(vcpu->vm, VM_END_HOST_ERROR, 0, 0);
	return false;
}

/* Guest-physical where the image put virtual @va, or NULL. */
static uint8_t *image_bytes(struct vm *vm, uint64_t va, uint64_t len)
{
	const struct elf_guest *g = vm->image;
	size_t i;

	for (i = 0; g && i < g->nsegs; i++) {
		const struct elf_segment *s = &g->segs[i];

		if (va >= s->vaddr && va + len <= s->vaddr + s->filesz)
			return vm_gpa_to_hva(vm, s->paddr + (va - s->vaddr), len);
	}
	return NULL;
}

/*
 * The vmlinux file's bytes at virtual @va: what the kernel's text is
 * before it runs, for planning the traps (a bzImage's kernel is not in
 * guest memory until its decompressor has put it there).
 */
static const uint8_t *file_bytes(struct vm *vm, uint64_t va, uint64_t len)
{
	const struct elf_guest *g = vm->image;
	size_t i;

	for (i = 0; g && g->image && i < g->nsegs; i++) {
		const struct elf_segment *s = &g->segs[i];

		if (va >= s->vaddr && va + len <= s->vaddr + s->filesz &&
		    s->offset + (va - s->vaddr) + len <= g->image_size)
			return g->image + s->offset + (va - s->vaddr);
	}
	return NULL;
}

/* Whether @va is in the image's writable segments: static data, which every CPU reaches. */
static bool image_data(struct vm *vm, uint64_t va)
{
	const struct elf_guest *g = vm->image;
	size_t i;

	for (i = 0; g && i < g->nsegs; i++) {
		const struct elf_segment *s = &g->segs[i];

		if ((s->flags & PF_W) && va >= s->vaddr && va - s->vaddr < s->memsz)
			return true;
	}
	return false;
}

static void budget_charge(struct linux_watch *lw, uint64_t ns)
{
	pthread_mutex_lock(&lw->lock);
	arm_budget_charge(&lw->budget, ns);
	pthread_mutex_unlock(&lw->lock);
}

/*
 * One site as the trap or as the guest's own instruction: one two-byte
 * store (trap_plan.h).  The traps go in once, while a single vCPU runs
 * (before a PVH kernel boots, or at a bzImage's first exit from its own
 * text, before it starts its other CPUs) and are never taken out, so no
 * CPU can fetch a half-written site, wherever the site lies: one that
 * crosses a cache line (kcsan_setup_watchpoint of the ORC test kernel has
 * a return site at a line's last byte) is as good as any.
 */
static void site_set(struct linux_watch *lw, const struct trap_site *s, bool trap)
{
	uint8_t code[TRAP_MAX_SITE_LEN];
	uint16_t v;

	if (trap)
		trap_site_code(s, LW_PORT, code);
	else
		memcpy(code, s->orig, TRAP_LEN);
	memcpy(&v, code, sizeof(v));
	memcpy(image_bytes(lw->vm, s->addr, TRAP_LEN), &v, sizeof(v));
}

static void exits_set(struct linux_watch *lw, bool trap)
{
	unsigned i;

	for (i = 0; i < lw->plan.nexits; i++)
		site_set(lw, &lw->plan.exit[i], trap);
}

/*
 * The value of @l as KCSAN's delay begins (KCSAN's own read was just
 * before), read before any arming: compared as the delay returns
 * (delay_return), as KCSAN compares it.  KCSAN compares values of 1, 2, 4
 * and 8 bytes only.
 */
static void note_value(struct vcpu *vcpu, struct lw_live *l)
{
	uint64_t v = 0;

	if (l->size != 1 && l->size != 2 && l->size != 4 && l->size != 8)
		return;
	if (guest_read_linear(vcpu, l->addr, &v, l->size) != l->size)
		return;
	l->old = v;
	__atomic_store_n(&l->value_known, true, __ATOMIC_RELEASE);
}

/*
 * Back the watch @l of @vcpu (whose %rsp is @rsp) with the debug
 * registers, while the time budget lasts: from the delay trap, or from
 * the entry trap when the kernel has no delay call to trap.
 */
static int back_watch(struct vcpu *vcpu, struct linux_watch *lw, struct lw_live *l, uint64_t rsp)
{
	uint32_t size, status = CSAN_HW_OFF, ticket = 0;
	uint64_t t0 = clock_now_ns();
	bool arm = true, on_stack = false;
	int rc;

	l->pending = false;
	pthread_mutex_lock(&lw->lock);
	/*
	 * Not on the watcher's own stack: the CPU writes there itself when
	 * it delivers an interrupt, and a data breakpoint in the middle of
	 * an event's delivery is where the emulated host's nested SVM went
	 * wrong (an interrupt delivered twice, the second with interrupts
	 * off: docs/harness.md).  KCSAN's races are on shared data.
	 */
	if (l->addr - (rsp & ~(LINUX_THREAD_SIZE - 1)) < LINUX_THREAD_SIZE) {
		arm = false;
		on_stack = true;
		lw->on_stack++;
	} else {
		switch (arm_budget_admit(&lw->budget, l->addr, vcpu->id,
					 image_data(lw->vm, l->addr), t0)) {
		case ARM_NO:
			arm = false;
			lw->over_budget++;
			break;
		case ARM_FAVOURED: lw->favoured++; break;
		case ARM_YES: break;
		}
	}
	pthread_mutex_unlock(&lw->lock);
	/*
	 * Before arming: arming takes milliseconds nested, and another vCPU
	 * may write before its registers are loaded; KCSAN, comparing with
	 * what it read before the delay, sees that write, the registers do
	 * not (delay_return looks again).
	 */
	if (lw->has_delay && !on_stack)
		note_value(vcpu, l);
	if (!arm)
		return VCPU_RESUME;
	size = l->size ? l->size : 1;
	rc = hw_watch_arm(vcpu, l->addr, &size, l->type & CSAN_ACCESS_KNOWN, &ticket, &status);
	if (rc != VCPU_RESUME)
		return rc;
	budget_charge(lw, clock_now_ns() - t0);
	l->ticket = ticket;
	__atomic_store_n(&l->armed, status == CSAN_HW_ARMED, __ATOMIC_RELEASE);
	if (status == CSAN_HW_OFF)
		l->value_known = false; /* hw mode was turned off: nothing to look at again */
	pthread_mutex_lock(&lw->lock);
	if (l->armed)
		lw->armed++;
	else if (status != CSAN_HW_OFF)
		lw->not_armed++;
	pthread_mutex_unlock(&lw->lock);
	return VCPU_RESUME;
}

/*
 * The entry trap: note the watchpoint KCSAN is setting up, to be armed
 * at its delay (or here, without a delay trap).  The traps stay in for
 * the whole run: taking them out and back while the guest runs
 * (cross-modifying its code) hung the guest in the emulated host now and
 * then (docs/BENCHMARKS.md).
 */
static int entry_trap(struct vcpu *vcpu, struct linux_watch *lw, struct kvm_regs *k)
{
	const bool hw = __atomic_load_n(&vcpu->vm->watch_hw, __ATOMIC_RELAXED);
	const uint64_t frame = k->rsp + lw->plan.entry.depth;
	unsigned id = vcpu->id, d;
	struct lw_live *l;
	bool follow;

	if (!emulate(vcpu, &lw->plan.entry, k))
		return VCPU_STOP;
	pthread_mutex_lock(&lw->lock);
	lw->entries++;
	d = lw->depth[id];
	follow = hw && d < LW_NEST;
	if (d == LW_NEST)
		lw->too_deep++;
	/* Counted live under the lock, so the exit traps stay while it is. */
	if (follow)
		lw->depth[id] = d + 1;
	pthread_mutex_unlock(&lw->lock);
	if (!follow)
		return VCPU_RESUME;

	l = &lw->live[id][d];
	/* kcsan_setup_watchpoint(ptr, size, type, ip): %rdi, %rsi, %edx, %rcx. */
	*l = (struct lw_live){
		.rsp = k->rsp,
		.frame = frame,
		.addr = k->rdi,
		.size = k->rsi > CSAN_REPORT_MAX_SIZE ? CSAN_REPORT_MAX_SIZE : (uint32_t)k->rsi,
		.type = (uint32_t)k->rdx,
		.pending = true,
	};
	l->context = lw_context(vcpu);
	l->task_id = l->context == CSAN_CTX_TASK ? lw_task_id(vcpu) : 0;
	return lw->has_delay ? VCPU_RESUME : back_watch(vcpu, lw, l, k->rsp);
}

/* On past KCSAN's call of its delay: RIP moved, KVM does not step past the OUT. */
static int delay_go_on(struct vcpu *vcpu, struct linux_watch *lw, struct kvm_regs *k)
{
	k->rip = lw->delay.addr + lw->delay.len;
	if (ioctl(vcpu->fd, KVM_SET_REGS, k) < 0) {
		log_error_errno(errno, "vCPU %u: cannot return from KCSAN's delay at %#" PRIx64,
				vcpu->id, lw->delay.addr);
		vm_end(vcpu->vm, VM_END_HOST_ERROR, 0, 0);
		return VCPU_STOP;
	}
	return VCPU_RESUME;
}

/*
 * Call KCSAN's delay once more, with its first argument, its return
 * pointed at the trap again, as the delay trap did (delay_trap).
 */
static int delay_again(struct vcpu *vcpu, struct linux_watch *lw, struct lw_live *l,
		       struct kvm_regs *k)
{
	k->rip = lw->delay.addr;
	k->rdi = l->delay_arg;
	if (!emulate(vcpu, &lw->delay, k))
		return VCPU_STOP;
	/* Unredirected, the call still returns past itself: the look ends there. */
	l->in_delay = write_u64(vcpu, k->rsp, lw->delay.addr);
	return VCPU_RESUME;
}

/*
 * KCSAN's delay returns (the delay trap pointed its return at the trap
 * itself): KCSAN is about to read the value again.  If it changed
 * meanwhile with no debug-register hit, KCSAN will most likely report a
 * race at unknown origin (unless its access mask hides the change, or
 * the access was a reordered one), and the writer may well write again.  That happens to
 * a watch the budget left unbacked, and to a backed one whose writer
 * wrote while the registers were being loaded (on its vCPU, before its
 * load).  The watcher has not gone on since its access, so a longer
 * delay changes nothing it does: arm (if not armed), and call KCSAN's
 * delay again and again, up to LW_SECOND_LOOK_MS, until a register
 * catches the other side; the exit trap then disarms and reports as for
 * any backed watch (merged with KCSAN's report, which waits for it).
 * Delaying in the guest, not holding the vCPU in the host, lets the
 * watcher's CPU take its interrupts where KCSAN's delay does (its
 * interrupt watcher on): a timer there may be the writer.  The return
 * is found by this vCPU's live watch and %rsp, which assumes the task
 * is not moved to another CPU inside its delay: true without full
 * preemption (the kernels csan-vmm's configurations build); with
 * CONFIG_PREEMPT a moved task's return would be taken for a new call.
 * A race has already shown there, so this is not charged to the budget.
 * Counted as backed late, or as missed.
 */
static int delay_return(struct vcpu *vcpu, struct linux_watch *lw, struct lw_live *l,
			struct kvm_regs *k)
{
	uint32_t size = l->size, status = CSAN_HW_OFF, ticket = 0;
	uint64_t v = 0;
	int rc;

	l->in_delay = false;
	if (l->look_until_ns) {
		if (hw_watch_caught(vcpu, l->ticket) || clock_now_ns() >= l->look_until_ns)
			return delay_go_on(vcpu, lw, k);
		return delay_again(vcpu, lw, l, k);
	}
	if (guest_read_linear(vcpu, l->addr, &v, l->size) != l->size || v == l->old)
		return delay_go_on(vcpu, lw, k);
	if (l->armed) {
		if (hw_watch_caught(vcpu, l->ticket))
			return delay_go_on(vcpu, lw, k);
		l->missed = true;
		pthread_mutex_lock(&lw->lock);
		lw->missed++;
		pthread_mutex_unlock(&lw->lock);
	} else {
		rc = hw_watch_arm(vcpu, l->addr, &size, l->type & CSAN_ACCESS_KNOWN, &ticket,
				  &status);
		if (rc != VCPU_RESUME)
			return rc;
		if (status != CSAN_HW_ARMED)
			return delay_go_on(vcpu, lw, k);
		l->ticket = ticket;
		l->late = true;
		__atomic_store_n(&l->armed, true, __ATOMIC_RELEASE);
		pthread_mutex_lock(&lw->lock);
		lw->late++;
		pthread_mutex_unlock(&lw->lock);
	}
	l->look_until_ns = clock_now_ns() + LW_SECOND_LOOK_MS * 1000000ull;
	return delay_again(vcpu, lw, l, k);
}

/*
 * The delay trap: KCSAN has read the watched value and is about to wait.
 * The call is this vCPU's innermost live watch's when that one's stack
 * frame is where this call's is (an interrupt's call of
 * kcsan_setup_watchpoint that is not followed has a frame of its own,
 * below).  The call is made first, so the vCPU is never left on its
 * trap, whatever arming returns.  A watch with its value noted, backed
 * or not, gets its delay's return address pointed at this trap, to be
 * looked at again there (delay_return); the stack is then as at the
 * call, which tells the return from a call.
 */
static int delay_trap(struct vcpu *vcpu, struct linux_watch *lw, struct kvm_regs *k)
{
	const uint64_t rsp = k->rsp, arg = k->rdi;
	unsigned d = lw->depth[vcpu->id];
	struct lw_live *l = d ? &lw->live[vcpu->id][d - 1] : NULL;
	int rc;

	if (l && l->in_delay && l->delay_rsp == rsp)
		return delay_return(vcpu, lw, l, k);
	if (!emulate(vcpu, &lw->delay, k))
		return VCPU_STOP;
	if (!l || !l->pending || l->frame != rsp + lw->delay.depth)
		return VCPU_RESUME;
	l->delay_arg = arg;
	rc = back_watch(vcpu, lw, l, rsp);
	/* k->rsp is at the return address the call pushed. */
	if (rc == VCPU_RESUME && l->value_known && write_u64(vcpu, k->rsp, lw->delay.addr)) {
		l->delay_rsp = rsp;
		l->in_delay = true;
	}
	return rc;
}

/* End @l, a watch of @vcpu: disarm it and report what it caught. */
static int end_watch(struct vcpu *vcpu, struct linux_watch *lw, const struct lw_live *l)
{
	struct hw_watch_result res;
	uint64_t t0 = clock_now_ns();
	int rc;

	if (!l->armed) {
		if (l->pending) {
			pthread_mutex_lock(&lw->lock);
			lw->not_delayed++;
			pthread_mutex_unlock(&lw->lock);
		}
		return VCPU_RESUME;
	}
	memset(&res, 0, sizeof(res));
	rc = hw_watch_disarm(vcpu, l->ticket, &res);
	pthread_mutex_lock(&lw->lock);
	arm_budget_charge(&lw->budget, clock_now_ns() - t0);
	if (res.hits)
		arm_budget_caught(&lw->budget, l->addr);
	if (l->late && res.have_hit)
		lw->late_caught++;
	if (l->missed && res.have_hit)
		lw->missed_caught++;
	pthread_mutex_unlock(&lw->lock);
	if (rc == VCPU_RESUME)
		watch_ended(vcpu, lw, l, &res);
	return rc == -ENOENT ? VCPU_RESUME : rc;
}

static int exit_trap(struct vcpu *vcpu, struct linux_watch *lw, const struct trap_site *s,
		     struct kvm_regs *k)
{
	unsigned id = vcpu->id, d = lw->depth[id], m;
	int rc = VCPU_RESUME;

	/*
	 * The entry pushed the register this exit pops (trap_plan.h): the
	 * watch this return ends is the live one whose %rsp after the push
	 * is the %rsp now.  Those above it never saw their exit (a vCPU
	 * reset) and end with it.  None: a call that began while the entry
	 * trap was out, and the live ones are not its.
	 */
	for (m = d; m > 0 && lw->live[id][m - 1].rsp != k->rsp; m--)
		;
	if (m > 0) {
		for (; d >= m && rc == VCPU_RESUME; d--)
			rc = end_watch(vcpu, lw, &lw->live[id][d - 1]);
		d = m - 1;
	}
	pthread_mutex_lock(&lw->lock);
	lw->depth[id] = d;
	pthread_mutex_unlock(&lw->lock);
	if (rc != VCPU_RESUME)
		return rc;
	return emulate(vcpu, s, k) ? VCPU_RESUME : VCPU_STOP;
}

/* The supervisor's tick: host reports whose wait for Linux's half is over, submitted. */
int linux_watch_tick(struct vm *vm, struct linux_watch *lw)
{
	(void)vm;
	if (!lw)
		return -1;
	pthread_mutex_lock(&lw->lock);
	flush_due(lw, clock_now_ns(), false);
	pthread_mutex_unlock(&lw->lock);
	return LW_TICK_MS;
}

static int trap_io(struct vcpu *vcpu, void *ctx, uint16_t port, bool is_write, uint8_t *data,
		   unsigned size, unsigned count)
{
	struct linux_watch *lw = ctx;
	struct kvm_regs k;
	unsigned i;

	(void)port, (void)data, (void)size, (void)count;
	if (!is_write || ioctl(vcpu->fd, KVM_GET_REGS, &k) < 0)
		return VCPU_RESUME;
	/* KVM steps past the OUT when the vCPU runs again: RIP is still on it. */
	if (k.rip == lw->plan.entry.addr)
		return entry_trap(vcpu, lw, &k);
	if (lw->has_delay && k.rip == lw->delay.addr)
		return delay_trap(vcpu, lw, &k);
	for (i = 0; i < lw->plan.nexits; i++)
		if (k.rip == lw->plan.exit[i].addr)
			return exit_trap(vcpu, lw, &lw->plan.exit[i], &k);
	return VCPU_RESUME; /* the guest's own write to the port: nobody there */
}

/* --- start ----------------------------------------------------------------- */

static void plant(struct linux_watch *lw)
{
	exits_set(lw, true);
	if (lw->has_delay)
		site_set(lw, &lw->delay, true);
	site_set(lw, &lw->plan.entry, true);
	__atomic_store_n(&lw->planted, true, __ATOMIC_RELEASE);
}

/* Whether @rip is in the vmlinux's text: the kernel itself runs, not its decompressor. */
static bool in_kernel_text(const struct elf_guest *g, uint64_t rip)
{
	size_t i;

	for (i = 0; i < g->nsegs; i++)
		if ((g->segs[i].flags & PF_X) && rip >= g->segs[i].vaddr &&
		    rip - g->segs[i].vaddr < g->segs[i].memsz)
			return true;
	return false;
}

/*
 * A bzImage's kernel is in place once it runs from its own text: then the
 * traps go in, long before KCSAN starts (at the end of start_kernel), on
 * the only vCPU running yet.  Its text must be the vmlinux's byte for
 * byte where the traps go: a kernel that moved itself (KASLR, which
 * csan-vmm's nokaslr turns off) or of another build would be corrupted.
 */
static int plant_when_in_place(struct vm *vm, struct vcpu *vcpu, void *ctx)
{
	struct linux_watch *lw = ctx;
	struct kvm_regs r;
	const uint8_t *want;
	uint8_t *have;

	if (__atomic_load_n(&lw->planted, __ATOMIC_ACQUIRE))
		return -1;
	if (ioctl(vcpu->fd, KVM_GET_REGS, &r) < 0 || !in_kernel_text(vm->image, r.rip))
		return -1;
	pthread_mutex_lock(&lw->lock);
	if (!lw->planted) {
		want = file_bytes(vm, lw->fn, lw->fn_size);
		have = image_bytes(vm, lw->fn, lw->fn_size);
		if (!want || !have || memcmp(want, have, lw->fn_size) != 0) {
			log_error("--watch=hw: the running kernel's kcsan_setup_watchpoint at %#" PRIx64
				  " is not the vmlinux's (it moved itself, or the vmlinux is of "
				  "another build); stopping before planting traps there",
				  lw->fn);
			__atomic_store_n(&lw->planted, true, __ATOMIC_RELEASE);
			vm_end(vm, VM_END_HOST_ERROR, 0, 0);
		} else {
			plant(lw);
		}
	}
	pthread_mutex_unlock(&lw->lock);
	return -1;
}

/*
 * KCSAN's call of its delay in kcsan_setup_watchpoint (@code): of
 * delay_access where the compiler kept it a function, else of the udelay
 * it calls (Linux 6.1: __udelay).  Without one the watches are armed at
 * the entry, which loses KCSAN's own report when a debug register
 * catches the racing write before KCSAN reads the value: said once.
 */
static void plan_delay(struct vm *vm, struct linux_watch *lw, const uint8_t *code)
{
	static const char *const delays[] = { "delay_access", "__udelay", "__const_udelay",
					      "__ndelay" };
	char reason[200] = "";
	uint64_t at;
	unsigned i;

	for (i = 0; i < sizeof(delays) / sizeof(delays[0]) && !lw->has_delay; i++)
		lw->has_delay = sym_addr_of(vm->sym, delays[i], 0, &at, NULL) == 0 &&
				trap_plan_call(code, lw->fn_size, lw->fn, at, &lw->delay, reason,
					       sizeof(reason)) == 0;
	if (!lw->has_delay)
		log_warn("--watch=hw: kcsan_setup_watchpoint has no call of KCSAN's delay csan-vmm "
			 "can trap%s%s; its watchpoints are armed at their start, so a write a debug "
			 "register catches before KCSAN reads the watched value is reported by the "
			 "host alone, and KCSAN sees no change",
			 reason[0] ? ": " : "", reason);
}

int linux_watch_start(struct vm *vm, struct linux_watch **out, char *why, size_t whylen)
{
	static const char fn_name[] = "kcsan_setup_watchpoint";
	struct linux_watch *lw;
	uint8_t *code;
	char reason[200];
	unsigned i;
	int rc;

	*out = NULL;
	if (!vm->sym) {
		snprintf(why, whylen,
			 "it follows KCSAN's watchpoints by the kernel's symbols, and there is no "
			 "vmlinux: give --vmlinux=PATH to the vmlinux of this kernel's build");
		return -EINVAL;
	}
	lw = calloc(1, sizeof(*lw));
	if (!lw) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	lw->vm = vm;
	pthread_mutex_init(&lw->lock, NULL);
	arm_budget_init(&lw->budget, LW_BUDGET_PCT, LW_BUDGET_BURST_MS);
	if (sym_addr_of(vm->sym, fn_name, 0, &lw->fn, &lw->fn_size) || !lw->fn_size) {
		snprintf(why, whylen,
			 "this kernel has no %s: it was built without CONFIG_KCSAN=y, so there are "
			 "no KCSAN watchpoints to back with debug registers (use --watch=soft, or "
			 "build with tools/linux/kcsan.config)",
			 fn_name);
		rc = -ENOENT;
		goto fail;
	}
	code = (uint8_t *)file_bytes(vm, lw->fn, lw->fn_size);
	if (!code) {
		snprintf(why, whylen, "%s at %#" PRIx64 " is not in the loaded image", fn_name,
			 lw->fn);
		rc = -EINVAL;
		goto fail;
	}
	rc = trap_plan_function(code, lw->fn_size, lw->fn, &lw->plan, reason, sizeof(reason));
	if (rc) {
		snprintf(why, whylen,
			 "%s has a layout csan-vmm cannot follow: %s (hw mode needs a plain "
			 "prologue and epilogue there; use --watch=soft)",
			 fn_name, reason);
		goto fail;
	}
	for (i = 0; i < lw->plan.nexits; i++)
		if (lw->plan.entry.insn[0].op != TRAP_OP_PUSH ||
		    lw->plan.exit[i].insn[0].op != TRAP_OP_POP ||
		    lw->plan.exit[i].insn[0].reg != lw->plan.entry.insn[0].reg)
			break;
	if (i < lw->plan.nexits) {
		snprintf(why, whylen,
			 "%s has a layout csan-vmm cannot follow: its entry's push and its exits' "
			 "pops are not of one register (use --watch=soft)",
			 fn_name);
		rc = -EINVAL;
		goto fail;
	}
	plan_delay(vm, lw, code);
	rc = linux_layout_find(vm->sym, lw->fn, &lw->layout, why, whylen);
	if (rc)
		goto fail;
	rc = pio_register(&vm->pio, LW_PORT, 1, "KCSAN watch traps", trap_io, lw, why, whylen);
	if (rc)
		goto fail;
	if (vm->image->bz) {
		rc = vm_hook_add(vm, VM_HOOK_BEFORE_EXIT, "linux-watch", plant_when_in_place, lw,
				 why, whylen);
		if (rc)
			goto fail;
	} else {
		plant(lw);
	}
	hw_watch_set_view(vm->hw, &linux_view);
	*out = lw;
	return 0;
fail:
	pthread_mutex_destroy(&lw->lock);
	free(lw);
	return rc;
}

void linux_watch_flush(struct vm *vm, struct linux_watch *lw)
{
	(void)vm;
	if (!lw)
		return;
	pthread_mutex_lock(&lw->lock);
	flush_due(lw, 0, true);
	pthread_mutex_unlock(&lw->lock);
}

void linux_watch_print_stats(struct linux_watch *lw, FILE *f)
{
	if (!lw)
		return;
	pthread_mutex_lock(&lw->lock);
	fprintf(f,
		LOG_PREFIX "KCSAN watchpoints followed: %" PRIu64 " set up, %" PRIu64
			   " backed by debug registers, %" PRIu64 " without a free one, %" PRIu64
			   " over the time budget (%d%% of wall time), %" PRIu64
			   " backed from its reserve for shared data, %" PRIu64
			   " on the watcher's stack, %" PRIu64 " nested too deep, %" PRIu64
			   " ended by KCSAN before its delay; %" PRIu64
			   " host reports, %" PRIu64 " merged with Linux's own, %" PRIu64
			   " without the watcher's stack; %" PRIu64
			   " unbacked whose value changed, backed late (%" PRIu64
			   " caught the other side then); %" PRIu64
			   " backed whose value changed unseen by the registers, delayed again (%" PRIu64
			   " caught the other side then)\n",
		lw->entries, lw->armed, lw->not_armed, lw->over_budget, LW_BUDGET_PCT, lw->favoured,
		lw->on_stack, lw->too_deep, lw->not_delayed, lw->reports, lw->merged, lw->lost_frames,
		lw->late, lw->late_caught, lw->missed, lw->missed_caught);
	pthread_mutex_unlock(&lw->lock);
}

void linux_watch_free(struct linux_watch *lw)
{
	if (!lw)
		return;
	pthread_mutex_destroy(&lw->lock);
	free(lw);
}
