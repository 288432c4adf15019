/* sample_modules.c: a loaded module's text joins the draw; at unload its sites leave it. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "vmm/base/clock.h"
#include "vmm/base/log.h"
#include "vmm/kvm/guest_mem.h"
#include "vmm/kvm/vcpu.h"
#include "vmm/kvm/vm.h"
#include "vmm/sample/sampler.h"
#include "watch/kmod.h"
#include "watch/sym.h"

/* Modules read from the guest's list at one look; more are left for the next. */
#define SAMPLE_MODULES_MAX 128
/* An exception table longer than this is not a module's: left unread (and the module out). */
#define SAMPLE_EXTABLE_MAX 65536u
/* struct exception_table_entry (x86, 6.1): int insn, fixup, data; insn relative to itself. */
#define EXTABLE_ENTRY_SIZE 12

void sample_modules_init(struct sampler *sp)
{
	struct kmod_guest_layout l;
	uint64_t head;

	/* CONFIG_MODULES: the list head kmod reads; without it nothing ever loads. */
	sp->modules = sym_addr_of(sp->vm->sym, "modules", 16, &head, NULL) == 0 &&
		      sym_modules(sp->vm->sym) != NULL;
	/* A kernel with modules whose struct module kmod cannot read: said, not fatal. */
	if (sp->modules && kmod_guest_layout_of(sp->vm->sym, &l) != 0) {
		sp->modules = false;
		log_warn("sampling: loaded modules will not be sampled: the vmlinux's DWARF "
			 "has no struct module in a layout csan-vmm reads (list, state, name, "
			 "and core_layout or mem[]); only the kernel's own text is");
	}
}

static int function_at(void *ctx, uint64_t addr, uint64_t *start, uint64_t *size, const char **name)
{
	return sym_function_at(ctx, addr, start, size, name);
}

static bool in_pool(struct sampler *sp, const char *name, uint64_t base)
{
	size_t i, n;
	bool found = false;

	pthread_mutex_lock(&sp->lock);
	n = sample_pool_modules(sp->pool);
	for (i = 0; i < n && !found; i++) {
		uint64_t b;
		const char *m = sample_pool_module(sp->pool, i, &b, NULL);

		found = b == base && strcmp(m, name) == 0;
	}
	pthread_mutex_unlock(&sp->lock);
	return found;
}

/* The exception table's instruction addresses, from the guest's copy; NULL and 0 when none. */
static uint64_t *read_extable(struct vcpu *vcpu, const struct kmod_live *m, size_t *n)
{
	size_t bytes = (size_t)m->num_exentries * EXTABLE_ENTRY_SIZE, i;
	uint8_t *raw;
	uint64_t *insns;

	*n = 0;
	if (!m->extable || !m->num_exentries || m->num_exentries > SAMPLE_EXTABLE_MAX)
		return NULL;
	raw = malloc(bytes);
	insns = malloc(m->num_exentries * sizeof(*insns));
	if (raw && insns && guest_read_linear(vcpu, m->extable, raw, bytes) == bytes) {
		for (i = 0; i < m->num_exentries; i++) {
			int32_t rel;

			memcpy(&rel, raw + i * EXTABLE_ENTRY_SIZE, sizeof(rel));
			insns[i] = m->extable + i * EXTABLE_ENTRY_SIZE + (uint64_t)(int64_t)rel;
		}
		*n = m->num_exentries;
	}
	free(raw);
	if (!*n) {
		free(insns);
		insns = NULL;
	}
	return insns;
}

/*
 * The text sections worth decoding.  A module's replacement instructions
 * for its alternatives are copied from, never run in place (the
 * vmlinux's are freed after boot, and left out for that); its noinstr,
 * entry, cpuidle and kprobes text are sections of their own, left out
 * for the reasons the vmlinux's ranges are (sample_sites.h: unsafe text).
 */
static bool sampled_section(const char *section)
{
	static const char *const left_out[] = {
		".altinstr_replacement", ".noinstr.text", ".entry.text",
		".cpuidle.text",	 ".kprobes.text",
	};
	size_t i;

	for (i = 0; i < sizeof(left_out) / sizeof(left_out[0]); i++)
		if (strcmp(section, left_out[i]) == 0)
			return false;
	return true;
}

/*
 * Module @m's text, from guest memory, into one copy spanning its
 * sections (the kernel's zero-filled gaps between them stay zero in the
 * copy but are never decoded), and its table.  The bytes are the ones the
 * kernel finished writing: kmod_live_modules gives COMING and LIVE
 * modules, whose relocations and alternatives are applied.
 */
static int add_module(struct vcpu *vcpu, struct sampler *sp, const struct kmod_live *m)
{
	struct sample_module_text text[KMOD_TEXT_MAX];
	struct sample_table *t = NULL;
	uint64_t lo = UINT64_MAX, hi = 0, *fault, t0 = clock_now_ns();
	size_t nfault, live, i, filtered = 0;
	unsigned ntext = 0;
	uint8_t *copy;
	char why[256];
	int rc;

	for (i = 0; i < m->ntext; i++) {
		lo = m->text[i].guest < lo ? m->text[i].guest : lo;
		hi = m->text[i].guest + m->text[i].size > hi ? m->text[i].guest + m->text[i].size
							     : hi;
	}
	if (!m->ntext || hi - lo > m->text_size + 4096)
		return -EINVAL; /* not the layout kmod found: nothing sensible to decode */
	copy = calloc(1, hi - lo);
	if (!copy)
		return -ENOMEM;
	for (i = 0; i < m->ntext; i++) {
		uint8_t *at = copy + (m->text[i].guest - lo);

		if (guest_read_linear(vcpu, m->text[i].guest, at, m->text[i].size) !=
		    m->text[i].size) {
			free(copy);
			return -EFAULT;
		}
		if (sampled_section(m->text[i].name))
			text[ntext++] = (struct sample_module_text){ m->text[i].guest, at,
								     m->text[i].size };
	}
	fault = read_extable(vcpu, m, &nfault);
	rc = sample_table_from_module(text, ntext, fault, nfault, function_at, sp->vm->sym, &t, why,
				      sizeof(why));
	free(fault);
	if (rc) {
		free(copy);
		log_warn("sampling: module %s: %s", m->name, why);
		return rc;
	}
	if (sp->o.only)
		filtered = sample_table_keep_functions(t, sp->vm->sym, sp->o.only);
	live = sample_table_live(t);
	log_error("sampling: module %s at %#" PRIx64 ": %zu sites of %" PRIu64
		  " instructions%s%s, %zu in its exception table (%.2f s)",
		  m->name, m->base, live, sample_table_stats(t)->insns,
		  sp->o.only ? ", only in " : "", sp->o.only ? sp->o.only : "", nfault,
		  (double)(clock_now_ns() - t0) / 1e9);
	pthread_mutex_lock(&sp->lock);
	rc = sample_pool_add_module(sp->pool, m->name, m->base, t, lo, copy, hi - lo);
	if (!rc) {
		sp->n.mod_added++;
		sp->n.mod_sites += live;
		sp->n.filtered += filtered;
		/*
		 * Sites for a code breakpoint left free (a table with too few
		 * sites, or none, until this module): drawn at this tick, not
		 * a period on.
		 */
		if (live && sp->nlive < __atomic_load_n(&sp->o.breakpoints, __ATOMIC_RELAXED))
			__atomic_store_n(&sp->reload, true, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&sp->lock);
	return rc;
}

/* Whether a module of the pool is still in the guest's list, and not going. */
static bool still_there(const struct kmod_live *seen, size_t n, const char *name, uint64_t base)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (seen[i].base == base && strcmp(seen[i].name, name) == 0)
			return seen[i].state == KMOD_LIVE || seen[i].state == KMOD_COMING;
	return false;
}

/*
 * The modules of the pool the guest no longer has (or is unloading:
 * GOING, its exit function about to run and its text to be freed) leave
 * the draw; a code breakpoint on one of their sites makes the next draw
 * load the registers, this tick.  Under lock.
 */
static void remove_gone(struct sampler *sp, const struct kmod_live *seen, size_t n)
{
	size_t i = 0;

	while (i < sample_pool_modules(sp->pool)) {
		uint64_t base;
		const char *name = sample_pool_module(sp->pool, i, &base, NULL);
		bool held[HW_CODE_MAX];
		char saved[64];
		long live;
		unsigned j, moved = 0;

		if (still_there(seen, n, name, base)) {
			i++;
			continue;
		}
		snprintf(saved, sizeof(saved), "%s", name);
		for (j = 0; j < sp->nlive; j++)
			held[j] = sample_pool_find(sp->pool, sp->live[j], NULL) != NULL;
		live = sample_pool_remove_module(sp->pool, saved, base);
		/* A live site found before and not now was the module's. */
		for (j = 0; j < sp->nlive; j++)
			moved += held[j] && !sample_pool_find(sp->pool, sp->live[j], NULL);
		sp->n.mod_removed++;
		sp->n.mod_retired += live > 0 ? (uint64_t)live : 0;
		sp->n.mod_moved += moved;
		if (moved)
			__atomic_store_n(&sp->reload, true, __ATOMIC_RELEASE);
		log_error("sampling: module %s at %#" PRIx64 " went away: %ld sites retired%s",
			  saved, base, live > 0 ? live : 0,
			  moved ? ", its code breakpoints taken off" : "");
	}
}

/* On vCPU 0's thread (vcpu_run_on): its page tables translate the list's addresses. */
static int poll_task(struct vcpu *vcpu, void *arg)
{
	struct sampler *sp = arg;
	struct kmod_live *seen;
	size_t n, i;

	if (kmod_refresh(sp->vm->sym, guest_unwind_read, vcpu) == -ENOENT) {
		/* No list in this kernel after all: the tick stops looking. */
		__atomic_store_n(&sp->modules, false, __ATOMIC_RELAXED);
		return 0;
	}
	seen = calloc(SAMPLE_MODULES_MAX, sizeof(*seen));
	if (!seen)
		return 0;
	n = kmod_live_modules(sp->vm->sym, seen, SAMPLE_MODULES_MAX);
	pthread_mutex_lock(&sp->lock);
	sp->n.polls++;
	remove_gone(sp, seen, n);
	pthread_mutex_unlock(&sp->lock);
	for (i = 0; i < n; i++) {
		if ((seen[i].state != KMOD_LIVE && seen[i].state != KMOD_COMING) ||
		    in_pool(sp, seen[i].name, seen[i].base))
			continue;
		/* Not in the pool: tried again at the next look. */
		if (add_module(vcpu, sp, &seen[i])) {
			pthread_mutex_lock(&sp->lock);
			sp->n.mod_failed++;
			pthread_mutex_unlock(&sp->lock);
		}
	}
	free(seen);
	return 0;
}

int sample_modules_tick(struct sampler *sp)
{
	return vcpu_run_on(sp->vm->vcpus[0], poll_task, sp) < 0 ? -1 : 0;
}

void sample_modules_print(struct sampler *sp, const struct sample_counts *n, FILE *f)
{
	if (!__atomic_load_n(&sp->modules, __ATOMIC_RELAXED) && !n->polls)
		return;
	fprintf(f,
		LOG_PREFIX "sampling modules: %" PRIu64 " looks at the list, %" PRIu64
			   " modules sampled (%" PRIu64 " sites), %" PRIu64
			   " reads that failed; %" PRIu64 " went away (%" PRIu64
			   " sites retired, %" PRIu64 " code breakpoints taken off their text)\n",
		n->polls, n->mod_added, n->mod_sites, n->mod_failed, n->mod_removed, n->mod_retired,
		n->mod_moved);
}
