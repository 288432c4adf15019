/* sample.h: --watch=sample: DataCollider-style sampling of a stock Linux kernel from the host. */
#ifndef CSAN_VMM_SAMPLE_H
#define CSAN_VMM_SAMPLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct vm;

/*
 * Defaults.  Two code breakpoints leave two debug registers for the data
 * watch of a hit (an unaligned 8-byte access needs two).  A new draw
 * every 20 ms moves them fifty times a second, so code that runs rarely
 * gets its turn; each draw makes every vCPU load its debug registers
 * (microseconds on KVM, about 10 ms nested under TCG).  The hold at a hit
 * is 5 ms: DataCollider's order of magnitude for a native kernel, and
 * in the emulated host, where the guest runs 10-25 times slower, still
 * long enough for a racing loop to come round (its time is mostly the
 * arming and disarming around it there).
 */
#define SAMPLE_DEFAULT_BREAKPOINTS 2
#define SAMPLE_DEFAULT_DELAY_MS	   5
#define SAMPLE_DEFAULT_PERIOD_MS   20

struct sample_opts {
	unsigned breakpoints; /* code breakpoints live at once, 1..HW_CODE_MAX */
	unsigned delay_ms;    /* how long a hit holds its vCPU */
	unsigned period_ms;   /* how often the live sites are drawn anew */
	unsigned paused;      /* 1: no code breakpoint armed, no draw (the control socket's) */
	uint64_t seed;	      /* the draw's seed */
	const char *only;     /* comma-separated shell patterns of function names; NULL: all */
};

/*
 * sample_attach - sample the Linux kernel of @vm (whose image and
 * symbols are in place: vm->image, vm->sym, vm->unw, vm->reports) as
 * @o says: build the table of sites from the vmlinux, and plug the hit
 * handler, the tick that draws sites and the hook that finds the
 * running kernel into @vm.  Before the vCPUs run.  Returns 0, or a
 * negative errno with what the user can do in @why.
 */
int sample_attach(struct vm *vm, const struct sample_opts *o, char *why, size_t whylen);

/* Sampling's knobs: --sample-* at start, 'get'/'set' on the control socket. */
enum sample_knob_id {
	SAMPLE_KNOB_BREAKPOINTS, /* struct sample_opts' breakpoints */
	SAMPLE_KNOB_DELAY_MS,	 /* delay_ms */
	SAMPLE_KNOB_PERIOD_MS,	 /* period_ms */
	SAMPLE_KNOB_PAUSED,	 /* paused: the control socket's alone, no flag */
	SAMPLE_KNOBS
};

struct sample_knob {
	const char *name; /* "sample_delay_ms" */
	uint32_t min, max;
};

extern const struct sample_knob sample_knobs[SAMPLE_KNOBS];

/* sample_knob_find - the knob called @name, or NULL. */
const struct sample_knob *sample_knob_find(const char *name);

/*
 * sample_knob_get, sample_knob_set - a knob of @vm's sampler now; any
 * thread.  Return 0, -EAGAIN when the run does not sample, -ERANGE for
 * a value outside [min, max].
 */
int sample_knob_get(struct vm *vm, const struct sample_knob *k, uint32_t *out);
int sample_knob_set(struct vm *vm, const struct sample_knob *k, uint32_t v);

/* sample_print_stats - sampling's counters, one line on @f; nothing when not sampling. */
void sample_print_stats(struct vm *vm, FILE *f);

/*
 * sample_json_stats - the same counters as --report-json's "sampling"
 * record, one line on @f (written whatever --quiet says); nothing when not
 * sampling.
 */
void sample_json_stats(struct vm *vm, FILE *f);

#endif /* CSAN_VMM_SAMPLE_H */
