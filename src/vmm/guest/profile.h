/* profile.h: what differs between kinds of guest kernel, behind one interface. */
#ifndef CSAN_VMM_PROFILE_H
#define CSAN_VMM_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vmm/dev/serial.h"

struct elf_guest;
struct report_log_opts;
struct sym;
struct vm;
struct vcpu;

/*
 * What a profile saw of its guest's run that the exit status depends on
 * (run/verdict.c decides; the closing summary line and the --report-json
 * "exit" record show it).  guest_run starts from "nothing seen"
 * (guest_findings_init); a profile's summarize fills what it knows.
 */
struct guest_findings {
	/* The guest crashed in a way the run's end does not show (Linux: a panic). */
	bool crashed;
	/*
	 * Race reports the guest printed that the report log could not take
	 * (Linux's KCSAN reports with no vmlinux to read them by): races all
	 * the same, counted beside the log's.
	 */
	uint64_t races_unlogged;
	/* The workload's own exit status; -1: none ran, or it never said. */
	int workload_status;
	/* A workload was to run and report its status: its silence is a failure. */
	bool workload_expected;
	/* KUnit's results (KTAP on the console); kunit_suites 0: none seen. */
	unsigned kunit_suites;
	unsigned kunit_passed, kunit_failed, kunit_skipped;
	unsigned kunit_incomplete; /* suites with no result line of their own */
};

/* guest_findings_init - nothing seen: no crash, no workload, no KUnit. */
static inline void guest_findings_init(struct guest_findings *f)
{
	*f = (struct guest_findings){ .workload_status = -1 };
}

enum guest_kind {
	GUEST_AUTO,  /* by the image: the csan ABI note picks csan, else linux */
	GUEST_CSAN,  /* the bundled guest or one built on its runtime */
	GUEST_LINUX, /* a plain PVH kernel: Linux */
};

/*
 * A guest profile: the bundled csan guest and a Linux kernel boot on the
 * same VM and report through the same pipeline; this interface is where
 * they differ, and nothing below run/ knows which one runs.  run/guest_run.c
 * calls these hooks and plugs the ones that act while the guest runs into
 * the core (kvm/hooks.h, the UART's line sink, watch mode).  Every hook
 * may be NULL (nothing to do).
 */
struct guest_profile {
	const char *name; /* "csan", "linux": --guest's words */

	/* Guest RAM when the user gave no --memory; 0: the common default. */
	uint64_t default_mem_bytes;

	/*
	 * Why this kind of guest cannot run on a kvm_pvm host (which emulates
	 * kernel code with a limited instruction set), for --host=auto to
	 * choose the emulated host instead; NULL when it can.
	 */
	const char *unfit_for_pvm;

	/*
	 * The guest finds virtio-mmio devices announced on its command line
	 * (virtio_mmio.device=SIZE@ADDR:IRQ, which run/ puts in front of
	 * the --append words it hands to cmdline), so it can take --disk.
	 */
	bool takes_virtio_mmio;

	/*
	 * The guest can place itself at random (Linux's KASLR), which
	 * --kaslr lets it do; run/ refuses --kaslr for a guest that cannot.
	 */
	bool takes_kaslr;

	/*
	 * The guest command line (malloc'd), or NULL when out of memory: for
	 * @scenario (NULL: none chosen), the run's @seed, the user's --append
	 * (NULL: none), and whether the guest may place itself at random
	 * (--kaslr; only where takes_kaslr).
	 */
	char *(*cmdline)(const char *scenario, uint64_t seed, const char *append, bool kaslr);

	/*
	 * How this kind of guest's reports are logged: words and rate limit
	 * (@lo is filled for the bundled guest's reports; change what differs).
	 */
	void (*report_log_opts)(struct report_log_opts *lo);

	/*
	 * With the symbols open, before any lookup, when the user named no
	 * --source-root: set the root source paths print under, where this
	 * kind of guest knows it better than the DWARF's votes do.
	 */
	void (*source_root)(struct sym *sym);

	/*
	 * Devices, hypercalls and boot data the guest needs beyond the common
	 * VM (RAM, irqchip, vCPUs, the 16550, ACPI): registered with the core
	 * here (pio_register, hc_register, vm_hook_add).  Called after the
	 * image is loaded, before the vCPUs run.  Returns 0, or a negative
	 * errno with a message in @why.
	 */
	int (*setup)(struct vm *vm, char *why, size_t whylen);

	/*
	 * One whole console line (no newline), in console order, under the
	 * console lock: may call vm_end(), must not write to the console.
	 * Returns what the console does with it (dev/serial.h): CONSOLE_SHOW,
	 * or holds and drops for a block the profile prints itself, with a
	 * note in @note (@notelen bytes) in the dropped block's place.
	 */
	enum console_verdict (*console_line)(struct vm *vm, const char *line, size_t len,
					     char *note, size_t notelen);

	/*
	 * The run is switching to hardware-watchpoint mode (at start, or from
	 * the console or control socket): prepare what this kind of guest
	 * needs for it, once, or refuse.  Returns 0, or a negative errno with
	 * what the user can do in @why.
	 */
	int (*watch_hw)(struct vm *vm, char *why, size_t whylen);

	/*
	 * The watch mode changed (watch_mode_hw() says which): tell the guest,
	 * if it needs to know.  Any thread.
	 */
	void (*watch_changed)(struct vm *vm);

	/*
	 * Now and then while the guest runs, on the supervising thread (not
	 * a vCPU's): timed work.  Returns the milliseconds until it wants the
	 * next call, or -1 for none.
	 */
	int (*tick)(struct vm *vm);

	/*
	 * How the guest ends a run by itself besides its console: a vCPU exit
	 * of a reason in @exit_reasons (KVM_EXIT_SHUTDOWN, KVM_EXIT_SYSTEM_EVENT;
	 * 0 ends the list).  Returns VCPU_RESUME or VCPU_STOP when the profile
	 * took it, VCPU_DEFAULT when it is a fault like any other.
	 */
	int (*exit)(struct vcpu *vcpu);
	uint32_t exit_reasons[3];

	/*
	 * For the status line, on the supervising thread: the guest's count of
	 * watchpoints set up so far and of those backed by debug registers;
	 * NULL: the guest keeps none (the line shows 0).
	 */
	void (*watchpoint_counts)(struct vm *vm, uint64_t *set_up, uint64_t *hw_armed);

	/*
	 * After the run, every vCPU stopped, before the race summary: hand
	 * the report log what the console still holds (a report cut off by
	 * the end of the run).
	 */
	void (*console_end)(struct vm *vm);

	/*
	 * After the race summary, unless --quiet: the guest's own counters,
	 * one line on @out.
	 */
	void (*print_counters)(struct vm *vm, FILE *out);

	/*
	 * The guest's result line for --compare (its own status and timings),
	 * into @buf (@len bytes); "" when it printed none.
	 */
	void (*result_line)(struct vm *vm, char *buf, size_t len);

	/*
	 * After the run, before the exit status is decided: print what the
	 * profile saw on @out (whatever --quiet says: it is findings), and
	 * fill in @f what the exit status depends on (a crash, the
	 * workload's status, KUnit's counts).
	 */
	void (*summarize)(struct vm *vm, struct guest_findings *f, FILE *out);

	/* Release what setup() allocated; @vm is about to be destroyed. */
	void (*teardown)(struct vm *vm);
};

extern const struct guest_profile csan_profile;
extern const struct guest_profile linux_profile;

/*
 * guest_profile_pick - the profile for @g: @kind, or for GUEST_AUTO the
 * csan profile when @g carries the csan ABI note and the Linux one
 * otherwise.  Returns NULL with a message in @why when @kind is
 * GUEST_CSAN and @g has no csan ABI note.
 */
const struct guest_profile *guest_profile_pick(const struct elf_guest *g, enum guest_kind kind,
					       char *why, size_t whylen);

#endif /* CSAN_VMM_PROFILE_H */
