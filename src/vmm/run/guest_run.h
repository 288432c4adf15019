/* guest_run.h: one run of the guest in one watch mode, start to exit status. */
#ifndef CSAN_VMM_GUEST_RUN_H
#define CSAN_VMM_GUEST_RUN_H

#include <stdbool.h>
#include <stdio.h>

#include "vmm/dev/serial.h"
#include "vmm/image/boot.h"
#include "vmm/kvm/vm.h"

struct options;
struct elf_guest;
struct report_log;

/* What one run is: the command line's settings, plus what a caller picks per run. */
struct guest_run_opts {
	const struct options *o; /* vCPUs, memory, timeout, seed, --append, --quiet */
	const char *scenario;	 /* told to the guest; NULL: the guest's own choice */
	bool watch_hw;		 /* start in hardware-watchpoint mode (the caller probed) */
	bool watch_sample;	 /* sample the kernel from the host (sample/; the caller probed) */
	bool hw_known;		 /* the caller probed: hw_unavailable holds the finding */
	const char *hw_unavailable; /* with hw_known: why hw mode cannot run; NULL: it can */
	FILE *report_json;	 /* --report-json stream, shared by runs; NULL: none */
	struct boot_initrd initrd; /* handed to the kernel; len 0: none */
};

/* What one run left behind. */
struct guest_run_result {
	int status;		 /* the exit status a normal run has (exit_status.h) */
	bool ran;		 /* the guest was booted (false: set-up failed, status 2) */
	struct vm_outcome outcome;
	struct report_log *log;	 /* every race reported; the caller frees it; NULL if !ran */
	double wall_s;		 /* from the VM's creation to the end of the run */
	char result_line[SERIAL_LINE_MAX + 1]; /* the guest's "csan-result:" line, or "" */
};

/*
 * guest_run - boot @g once as @ro says (with the control socket and
 * console escapes @ro->o asks for), run it to its end, print its
 * reports as they come and the race summary and counters after (as
 * csan-vmm always does, less with --quiet), and fill @res.  The status
 * line is drawn while it runs when stderr is a terminal.  Returns
 * res->status; what went wrong has been printed.
 */
int guest_run(struct elf_guest *g, const struct guest_run_opts *ro, struct guest_run_result *res);

/*
 * guest_run_pick_scenario - the scenario a run of @g is told to run: @o's
 * --scenario, else the default when @g has it; NULL in *@out leaves the
 * choice to the guest.  Returns 0, or -ENOENT after saying why (no
 * scenario table, or no such name).
 */
int guest_run_pick_scenario(const struct options *o, const struct elf_guest *g,
			    const char **out);

/* guest_run_result_free - release what guest_run left in @res. */
void guest_run_result_free(struct guest_run_result *res);

#endif /* CSAN_VMM_GUEST_RUN_H */
