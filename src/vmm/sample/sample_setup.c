/* sample_setup.c: sampling joins a VM: the table of sites, the running kernel, the draws. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include <linux/kvm.h>

#include "vmm/base/clock.h"
#include "vmm/base/log.h"
#include "vmm/hwwatch/hw_watch.h"
#include "vmm/image/elf_guest.h"
#include "vmm/kvm/vcpu.h"
#include "vmm/kvm/vm.h"
#include "vmm/sample/sampler.h"
#include "watch/sym.h"
#include "watch/unwind.h"

/* MSR_LSTAR: the 64-bit SYSCALL entry point (SDM Vol. 4, table 2-2). */
#define MSR_LSTAR 0xc0000082u

/* Draws in a row that may find rewritten sites before a slot stays empty this time. */
#define SAMPLE_REDRAWS 64

/* How often the tick looks whether the kernel runs yet, whatever the period. */
#define SAMPLE_START_POLL_MS 10

/* --- the running kernel -------------------------------------------------- */

/*
 * At every exit until the kernel runs: MSR_LSTAR on this vCPU (its own
 * thread) holds entry_SYSCALL_64 once syscall_init has run, early in
 * start_kernel and long before any other CPU starts.  Its distance from
 * the vmlinux's address is the kernel's KASLR offset (0 with csan-vmm's
 * nokaslr); its physical address, through this vCPU's page tables, gives
 * the offset of the kernel's physical place, where its bytes are checked.
 */
static int find_running(struct vm *vm, struct vcpu *vcpu, void *ctx)
{
	struct sampler *sp = ctx;
	/* struct kvm_msrs and the room for its one entry (a flexible array). */
	union {
		struct kvm_msrs head;
		uint8_t room[sizeof(struct kvm_msrs) + sizeof(struct kvm_msr_entry)];
	} m = { .head.nmsrs = 1 };
	struct kvm_msr_entry *e = &m.head.entries[0];
	struct kvm_translation t;
	const struct elf_segment *s;

	(void)vm;
	if (__atomic_load_n(&sp->running, __ATOMIC_ACQUIRE) || vcpu->id != 0)
		return -1;
	e->index = MSR_LSTAR;
	if (ioctl(vcpu->fd, KVM_GET_MSRS, &m) != 1 || !e->data)
		return -1;
	t = (struct kvm_translation){ .linear_address = e->data };
	s = sample_segment_of(sp->vm->image, sp->entry_syscall, 1);
	if (ioctl(vcpu->fd, KVM_TRANSLATE, &t) < 0 || !t.valid || !s)
		return -1;
	sp->virt_off = (int64_t)(e->data - sp->entry_syscall);
	sp->phys_off = (int64_t)(t.physical_address - (s->paddr + (sp->entry_syscall - s->vaddr)));
	pthread_mutex_lock(&sp->lock);
	sample_pool_set_offset(sp->pool, sp->virt_off);
	pthread_mutex_unlock(&sp->lock);
	/* Reports, stacks and the module list read the moved image from now on. */
	if (sp->vm->sym)
		sym_set_image_offset(sp->vm->sym, sp->virt_off);
	unwind_set_image_offset(sp->vm->unw, sp->virt_off);
	if (sp->virt_off || sp->phys_off)
		log_error("sampling: the kernel runs %+" PRId64 " bytes from its link address "
			  "(KASLR; %+" PRId64 " physical), from MSR_LSTAR",
			  sp->virt_off, sp->phys_off);
	__atomic_store_n(&sp->running, 1, __ATOMIC_RELEASE);
	return -1;
}

/* --- the draws ------------------------------------------------------------ */

/*
 * The next site to give a code breakpoint, at its run-time address; 0
 * when none.  A vmlinux site's bytes are checked here, through the
 * guest's physical memory; a module's text is in the vmalloc area, which
 * this thread cannot translate: its bytes are checked at the hit
 * (sample_hit.c), before anything is decoded.  A breakpoint itself
 * changes nothing in the guest.  Under lock.
 */
static uint64_t draw_one(struct sampler *sp)
{
	unsigned tries;

	for (tries = 0; tries < SAMPLE_REDRAWS; tries++) {
		uint64_t at;
		const struct sample_site *s = sample_pool_draw(sp->pool, &at);

		if (!s)
			return 0;
		if (!sample_segment_of(sp->vm->image, s->addr, s->len) ||
		    sample_site_in_place(sp, s->addr, s->len))
			return at;
		sample_pool_retire(sp->pool, at);
		sp->n.rewritten++;
	}
	return 0;
}

static bool drawn(const uint64_t *addrs, unsigned n, uint64_t a)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (addrs[i] == a)
			return true;
	return false;
}

/*
 * Milliseconds from @now until the tick has work: the next draw, or the
 * next look at the module list when it comes first (a period may be far
 * longer than SAMPLE_MODULE_POLL_MS, the bound on how long a code
 * breakpoint stays on an unloaded module's text).
 */
static int ms_until_next(const struct sampler *sp, uint64_t now)
{
	uint64_t next = sp->next_draw_ns;

	if (__atomic_load_n(&sp->modules, __ATOMIC_RELAXED) && sp->next_poll_ns < next)
		next = sp->next_poll_ns;
	return next <= now ? 0 : (int)((next - now) / 1000000u) + 1;
}

/*
 * Paused (the control socket's sample_paused): the code breakpoints come
 * off at the first tick, in one load, and no site is drawn until it is
 * lifted; the draw then comes at once.  The modules are still followed.
 * Looked at again every SAMPLE_START_POLL_MS, so a resume takes effect
 * within that, whatever the period.
 */
static int pause_tick(struct vm *vm, struct sampler *sp, uint64_t now)
{
	unsigned loaded;
	bool armed;

	pthread_mutex_lock(&sp->lock);
	armed = sp->nlive > 0;
	sp->nlive = 0;
	pthread_mutex_unlock(&sp->lock);
	if (armed && hw_code_breakpoints_set(vm, NULL, 0, &loaded))
		return -1;
	__atomic_store_n(&sp->reload, true, __ATOMIC_RELEASE);
	sp->next_draw_ns = now;
	return SAMPLE_START_POLL_MS;
}

/*
 * The supervisor's tick: every period, new sites for the code
 * breakpoints, uniformly over the table (sample_table_draw), so the
 * sampling rate, not how hot the code is, decides how often a site is
 * watched.  Each draw makes every vCPU load its debug registers.
 */
static int draw_tick(struct vm *vm, struct vcpu *vcpu, void *ctx)
{
	struct sampler *sp = ctx;
	uint64_t addrs[HW_CODE_MAX], now = clock_now_ns();
	unsigned i, n = 0, loaded = 0;
	bool same;
	const unsigned period = __atomic_load_n(&sp->o.period_ms, __ATOMIC_RELAXED);
	const unsigned want = __atomic_load_n(&sp->o.breakpoints, __ATOMIC_RELAXED);

	(void)vcpu;
	/* Not a period: the first draw comes as soon as the kernel runs. */
	if (!__atomic_load_n(&sp->running, __ATOMIC_ACQUIRE))
		return period < SAMPLE_START_POLL_MS ? (int)period : SAMPLE_START_POLL_MS;
	if (__atomic_load_n(&sp->modules, __ATOMIC_RELAXED) && now >= sp->next_poll_ns) {
		if (sample_modules_tick(sp))
			return -1;
		sp->next_poll_ns = now + SAMPLE_MODULE_POLL_MS * 1000000ull;
		/* The look stopped vCPU 0 and may have decoded a module: it took time. */
		now = clock_now_ns();
	}
	if (__atomic_load_n(&sp->o.paused, __ATOMIC_RELAXED))
		return pause_tick(vm, sp, now);
	if (now < sp->next_draw_ns && !__atomic_load_n(&sp->reload, __ATOMIC_ACQUIRE))
		return ms_until_next(sp, now);
	pthread_mutex_lock(&sp->lock);
	for (i = 0; i < want && i < HW_CODE_MAX; i++) {
		uint64_t a = draw_one(sp);

		if (a && !drawn(addrs, n, a))
			addrs[n++] = a;
	}
	same = n == sp->nlive && !sp->reload;
	for (i = 0; i < n && same; i++)
		same = drawn(sp->live, sp->nlive, addrs[i]);
	sp->reload = false;
	memcpy(sp->live, addrs, n * sizeof(addrs[0]));
	sp->nlive = n;
	pthread_mutex_unlock(&sp->lock);
	/*
	 * The same sites again (a table of a few, under --sample-only): the
	 * vCPUs have them loaded, and a load costs every vCPU an exit.
	 */
	if (!same) {
		if (hw_code_breakpoints_set(vm, addrs, n, &loaded))
			return -1;
		pthread_mutex_lock(&sp->lock);
		sp->n.draws += loaded;
		/* Those without a free register are drawn again, not taken as loaded. */
		sp->nlive = loaded;
		pthread_mutex_unlock(&sp->lock);
	}
	now = clock_now_ns();
	sp->next_draw_ns = now + period * 1000000ull;
	return ms_until_next(sp, now);
}

/* --- set-up --------------------------------------------------------------- */

static int free_sampler(struct vm *vm, struct vcpu *vcpu, void *ctx)
{
	struct sampler *sp = ctx;

	(void)vcpu;
	vm->sample = NULL;
	sample_pool_free(sp->pool);
	pthread_mutex_destroy(&sp->lock);
	free(sp);
	return 0;
}

static int build_table(struct sampler *sp, char *why, size_t whylen)
{
	const char *path = sp->vm->image->sym_path;
	const struct sample_stats *st;
	struct sample_table *t;
	uint64_t t0 = clock_now_ns();
	char reason[256];
	int rc;

	rc = sample_table_from_vmlinux(path, &t, reason, sizeof(reason));
	if (rc) {
		snprintf(why, whylen, "--watch=sample: cannot read the sites of %s: %s", path,
			 reason);
		return rc;
	}
	sample_table_sort(t);
	if (sp->o.only)
		sp->n.filtered = sample_table_keep_functions(t, sp->vm->sym, sp->o.only);
	rc = sample_table_seed(t, sp->o.seed);
	if (!rc && !(sp->pool = sample_pool_new(t, sp->o.seed)))
		rc = -ENOMEM;
	else if (rc)
		sample_table_free(t);
	if (rc) {
		snprintf(why, whylen, "--watch=sample: out of memory");
		return rc;
	}
	sp->sites = sample_table_live(t);
	st = sample_table_stats(t);
	log_error("sampling: %zu sites of %" PRIu64
		  " instructions in %s%s%s (%.2f s), seed %" PRIu64
		  ", %u code breakpoint%s drawn every %u ms, a hit held %u ms",
		  sp->sites, st->insns, path, sp->o.only ? ", only in " : "",
		  sp->o.only ? sp->o.only : "", (double)(clock_now_ns() - t0) / 1e9, sp->o.seed,
		  sp->o.breakpoints, sp->o.breakpoints == 1 ? "" : "s", sp->o.period_ms,
		  sp->o.delay_ms);
	/* The functions may be a module's, whose sites come when it loads. */
	if (!sp->sites && sp->modules) {
		log_warn("sampling: no site in %s%s%s; sampling waits for modules", path,
			 sp->o.only ? " matches --sample-only=" : "", sp->o.only ? sp->o.only : "");
		return 0;
	}
	if (!sp->sites) {
		snprintf(why, whylen, "--watch=sample: no site to sample%s%s",
			 sp->o.only ? " in the functions --sample-only=" : "",
			 sp->o.only ? sp->o.only : "");
		return -ENOENT;
	}
	return 0;
}

int sample_attach(struct vm *vm, const struct sample_opts *o, char *why, size_t whylen)
{
	struct sampler *sp;
	uint64_t near;
	char reason[256];
	int rc;

	if (!vm->sym || !vm->image || !vm->image->sym_path) {
		snprintf(why, whylen,
			 "--watch=sample: it draws its sites from the kernel's vmlinux, "
			 "and there is none: give --vmlinux=PATH");
		return -EINVAL;
	}
	sp = calloc(1, sizeof(*sp));
	if (!sp) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	sp->vm = vm;
	sp->o = *o;
	pthread_mutex_init(&sp->lock, NULL);
	rc = vm_hook_add(vm, VM_HOOK_DESTROY, "sample", free_sampler, sp, why, whylen);
	if (rc) {
		pthread_mutex_destroy(&sp->lock);
		free(sp);
		return rc;
	}
	vm->sample = sp;
	if (sym_addr_of(vm->sym, "entry_SYSCALL_64", 0, &sp->entry_syscall, NULL)) {
		snprintf(why, whylen,
			 "--watch=sample: %s has no entry_SYSCALL_64, by which sampling "
			 "finds the running kernel (an x86-64 Linux vmlinux?)",
			 vm->image->sym_path);
		return -ENOENT;
	}
	sample_modules_init(sp);
	rc = build_table(sp, why, whylen);
	if (rc)
		return rc;
	/* Without it every side is a task's, unnamed: said, not fatal. */
	sp->have_layout =
		sym_addr_of(vm->sym, "start_kernel", 0, &near, NULL) == 0 &&
		linux_layout_find(vm->sym, near, &sp->layout, reason, sizeof(reason)) == 0;
	if (!sp->have_layout)
		log_warn("sampling: reports will not tell interrupts from tasks: %s",
			 "this kernel's per-CPU __preempt_count was not found");
	hw_watch_set_code_hit(vm->hw, sample_code_hit, sp);
	hw_watch_set_view(vm->hw, &sample_view);
	rc = vm_hook_add(vm, VM_HOOK_BEFORE_EXIT, "sample", find_running, sp, why, whylen);
	if (!rc)
		rc = vm_hook_add(vm, VM_HOOK_TICK, "sample", draw_tick, sp, why, whylen);
	if (rc)
		return rc;
	vm->watch_sample = true;
	return 0;
}

/* @vm's sampler and a copy of its counters, or NULL when it is not sampled. */
static struct sampler *counts_of(struct vm *vm, struct sample_counts *n)
{
	struct sampler *sp = vm->sample;

	if (sp) {
		pthread_mutex_lock(&sp->lock);
		*n = sp->n;
		pthread_mutex_unlock(&sp->lock);
	}
	return sp;
}

void sample_print_stats(struct vm *vm, FILE *f)
{
	struct sample_counts n;
	struct sampler *sp = counts_of(vm, &n);

	if (!sp)
		return;
	fprintf(f,
		LOG_PREFIX "sampling: %zu sites in the table, %" PRIu64
			   " code breakpoints armed, %" PRIu64 " hits; skipped: %" PRIu64
			   " on the vCPU's stack, %" PRIu64 " not kernel addresses, %" PRIu64
			   " unreadable, %" PRIu64 " without a free debug register, %" PRIu64
			   " re-drawn before the hit was taken, %" PRIu64
			   " sites retired as rewritten, %" PRIu64
			   " hits on rewritten bytes (retired, not decoded); %" PRIu64
			   " data watches, %" PRIu64 " trapped another access (%" PRIu64
			   " of them with both sides marked, not a race), %" PRIu64
			   " saw the value change untrapped; %" PRIu64 " reports\n",
		sp->sites, n.draws, n.hits, n.on_stack, n.user, n.unreadable, n.no_slot, n.stale,
		n.rewritten, n.hit_rewritten, n.watches, n.trapped, n.marked, n.changed, n.reports);
	sample_modules_print(sp, &n, f);
}

void sample_json_stats(struct vm *vm, FILE *f)
{
	struct sample_counts n;
	struct sampler *sp = counts_of(vm, &n);

	if (!sp)
		return;
	fprintf(f,
		"{\"type\":\"sampling\",\"sites\":%zu,\"armed\":%" PRIu64 ",\"hits\":%" PRIu64
		",\"skipped\":{\"on_stack\":%" PRIu64 ",\"not_kernel\":%" PRIu64
		",\"unreadable\":%" PRIu64 ",\"no_register\":%" PRIu64 ",\"redrawn\":%" PRIu64
		",\"hit_rewritten\":%" PRIu64 "},\"retired_rewritten\":%" PRIu64
		",\"watches\":%" PRIu64 ",\"trapped\":%" PRIu64 ",\"marked\":%" PRIu64
		",\"changed\":%" PRIu64 ",\"reports\":%" PRIu64,
		sp->sites, n.draws, n.hits, n.on_stack, n.user, n.unreadable, n.no_slot, n.stale,
		n.hit_rewritten, n.rewritten, n.watches, n.trapped, n.marked, n.changed, n.reports);
	if (__atomic_load_n(&sp->modules, __ATOMIC_RELAXED) || n.polls)
		fprintf(f,
			",\"modules\":{\"looks\":%" PRIu64 ",\"sampled\":%" PRIu64
			",\"sites\":%" PRIu64 ",\"failed\":%" PRIu64 ",\"went_away\":%" PRIu64
			",\"sites_retired\":%" PRIu64 ",\"breakpoints_moved\":%" PRIu64 "}",
			n.polls, n.mod_added, n.mod_sites, n.mod_failed, n.mod_removed,
			n.mod_retired, n.mod_moved);
	fputs("}\n", f);
}
