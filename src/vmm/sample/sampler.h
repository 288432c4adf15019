/* sampler.h: the sampler's state, for the files of sample/ only. */
#ifndef CSAN_VMM_SAMPLER_H
#define CSAN_VMM_SAMPLER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "vmm/guest/linux/linux_view.h"
#include "vmm/hwwatch/hw_watch.h"
#include "vmm/sample/sample.h"
#include "watch/sample_sites.h"

struct vm;
struct vcpu;

/*
 * How often the guest's module list is read (one stop of vCPU 0, whose
 * thread reads it, each time): a module loaded is sampled within this,
 * and one unloaded keeps a code breakpoint on its freed text at most
 * this long, where a hit is checked against the site's bytes anyway.
 */
#define SAMPLE_MODULE_POLL_MS 100

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
	uint64_t hit_rewritten; /* hits on bytes no longer the site's: retired, not decoded */
	uint64_t filtered;	/* sites left out by --sample-only */
	/* Loaded modules (sample_modules.c). */
	uint64_t mod_added;   /* modules whose text joined the draw */
	uint64_t mod_sites;   /* their sites (after --sample-only) */
	uint64_t mod_removed; /* modules gone (unloaded, or going) */
	uint64_t mod_retired; /* their sites still live then, retired */
	uint64_t mod_moved;   /* code breakpoints taken off an unloaded module's text */
	uint64_t mod_failed;  /* modules whose text could not be read or decoded */
	uint64_t polls;	      /* looks at the guest's module list */
};

struct sampler {
	struct vm *vm;
	struct sample_opts o;
	pthread_mutex_t lock;	    /* the table, the live sites, the counters */
	struct sample_pool *pool;   /* the vmlinux's table and the modules' */
	size_t sites;		    /* in the vmlinux's table after --sample-only */
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
	/* The sites with a code breakpoint now, at their run-time addresses. */
	uint64_t live[HW_CODE_MAX];
	unsigned nlive;
	bool reload; /* draw at the next tick: a live site went away, or sites came for a free breakpoint */
	uint64_t next_draw_ns;
	/* Modules: the guest's list is looked at every SAMPLE_MODULE_POLL_MS (sample_modules.c). */
	bool modules; /* the kernel has modules, and their list was found */
	uint64_t next_poll_ns;
	struct sample_counts n;
};

/* sample_modules.c */

/*
 * sample_modules_tick - from the draw's tick, every SAMPLE_MODULE_POLL_MS:
 * on vCPU 0's thread, read the guest's module list; a module that came
 * joins the draw, one that went leaves it (and a code breakpoint on its
 * text is taken off at this draw).  Returns 0 or VCPU_STOP's error.
 */
int sample_modules_tick(struct sampler *sp);

/* sample_modules_init - whether this kernel has modules to follow; at attach. */
void sample_modules_init(struct sampler *sp);

/* sample_modules_print - the modules' counters, one line; nothing when the kernel has none. */
void sample_modules_print(struct sampler *sp, const struct sample_counts *n, FILE *f);

/* sample_setup.c */

struct elf_guest;
struct elf_segment;

/* sample_segment_of - @g's loaded segment holding [@va, @va + @len) of its file, or NULL. */
const struct elf_segment *sample_segment_of(const struct elf_guest *g, uint64_t va, uint64_t len);

/* sample_expected_bytes - the vmlinux's bytes at link address @va, @len long, or NULL. */
const uint8_t *sample_expected_bytes(struct sampler *sp, uint64_t va, unsigned len);

/*
 * sample_site_in_place - whether the @len bytes at link address @va are
 * in guest memory (found by the physical KASLR offset) the vmlinux's.
 */
bool sample_site_in_place(struct sampler *sp, uint64_t va, unsigned len);

/* sample_hit.c */

/* sample_code_hit - the hwwatch/ engine's code-breakpoint handler (hw_code_hit_fn). */
int sample_code_hit(struct vcpu *vcpu, uint64_t addr, void *ctx);

/* The engine's view of a Linux vCPU (context, task, KCSAN's own accesses), for both sides. */
extern const struct hw_guest_view sample_view;

#endif /* CSAN_VMM_SAMPLER_H */
