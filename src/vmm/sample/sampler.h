/* sampler.h: the sampler's state, for the files of sample/ only. */
#ifndef CSAN_VMM_SAMPLER_H
#define CSAN_VMM_SAMPLER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "vmm/guest/linux/linux_view.h"
#include "vmm/hwwatch/hw_watch.h"
#include "vmm/sample/sample.h"
#include "watch/sample_sites.h"

struct vm;
struct vcpu;

/* What sampling did, for the closing line; under sampler.lock. */
struct sample_counts {
	uint64_t draws;	     /* sites given a code breakpoint */
	uint64_t hits;	     /* code breakpoint hits taken */
	uint64_t stale;	     /* hits on a site no longer live (re-drawn meanwhile) */
	uint64_t on_stack;   /* hits whose address was the vCPU's own stack */
	uint64_t user;	     /* hits whose address was not the kernel's */
	uint64_t unreadable; /* hits whose address did not translate */
	uint64_t no_slot;    /* hits with no debug register free for the data watch */
	uint64_t watches;    /* data watches armed */
	uint64_t trapped;    /* of them, caught by a debug register on another access */
	uint64_t changed;    /* of them, the value changed with no trap */
	uint64_t marked;     /* trapped, both sides marked: no race by KCSAN's rule */
	uint64_t reports;    /* reports submitted */
	uint64_t rewritten;  /* sites retired: their bytes in guest memory were not the vmlinux's */
	uint64_t filtered;   /* sites left out by --sample-only */
};

struct sampler {
	struct vm *vm;
	struct sample_opts o;
	pthread_mutex_t lock; /* the table, the live sites, the counters */
	struct sample_table *table;
	size_t sites;		    /* in the table after --sample-only */
	struct linux_layout layout; /* for the view, when have_layout */
	bool have_layout;
	/*
	 * The kernel runs its own code once MSR_LSTAR holds its syscall
	 * entry (syscall_init, early in start_kernel): only then are its
	 * text's bytes in place, and the difference from the vmlinux's
	 * entry_SYSCALL_64 is the KASLR offset of the text (virt_off) and,
	 * through the vCPU's page tables, of its physical place (phys_off).
	 */
	int running; /* atomic */
	uint64_t entry_syscall;
	int64_t virt_off, phys_off;
	/* The sites with a code breakpoint now, at their link-time addresses. */
	uint64_t live[HW_CODE_MAX];
	unsigned nlive;
	uint64_t next_draw_ns;
	struct sample_counts n;
};

/* sample_hit.c */

/* sample_code_hit - the hwwatch/ engine's code-breakpoint handler (hw_code_hit_fn). */
int sample_code_hit(struct vcpu *vcpu, uint64_t addr, void *ctx);

/* The engine's view of a Linux vCPU (context, task, KCSAN's own accesses), for both sides. */
extern const struct hw_guest_view sample_view;

#endif /* CSAN_VMM_SAMPLER_H */
