/* options.h: the csan-vmm command line. */
#ifndef CSAN_VMM_OPTIONS_H
#define CSAN_VMM_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vmm/console/console_input.h"
#include "vmm/guest/profile.h"
#include "vmm/workload/workload.h"

#define OPT_DEFAULT_CPUS     2
#define OPT_DEFAULT_MEMORY   (64ull << 20)
#define OPT_MIN_MEMORY	     (16ull << 20)
#define OPT_DEFAULT_SCENARIO "selftest"
/* --scenario=all: every scenario the guest lists (with --compare). */
#define OPT_ALL_SCENARIOS "all"

/*
 * --disk: how many a run may have.  One is enough for a root file system
 * or a scratch disk; each would take the next virtio-mmio slot
 * (dev/virtio_mmio.h), so more is this number and a test.
 */
#define OPT_MAX_DISKS 1

/* --disk=IMAGE[,ro]: a raw image the guest sees as a virtio block device. */
struct opt_disk {
	const char *path; /* without ",ro"; owned by options */
	bool ro;
};

/* --host: where the guest runs. */
enum opt_host {
	OPT_HOST_AUTO,	   /* /dev/kvm when it can run the request, else emulated */
	OPT_HOST_KVM,	   /* this machine's /dev/kvm */
	OPT_HOST_EMULATED, /* csan-vmm inside the emulated host (src/harness) */
};

enum opt_action {
	OPT_RUN,
	OPT_HELP,
	OPT_VERSION,
	OPT_LIST_SCENARIOS,
	OPT_PROBE, /* --probe: what this host's KVM can do */
	OPT_SEND,  /* --send: a client of another csan-vmm's --control socket */
};

struct options {
	enum opt_action action;
	unsigned cpus;
	uint64_t mem_bytes;
	const char *append;   /* NULL when not given; owned by options */
	const char *scenario; /* NULL when not given */
	unsigned timeout_s;   /* 0: no limit */
	uint64_t seed;
	bool seed_given;
	bool quiet;
	const char *guest_path;	 /* NULL: the bundled guest */
	const char *vmlinux;	 /* --vmlinux=PATH: a bzImage's symbols; NULL: look for them */
	const char *report_json; /* --report-json=FILE, NULL when not given */
	const char *source_root; /* --source-root=DIR, NULL: found from the DWARF */
	const char *modules_dir; /* --modules=DIR, NULL: the default places (kmod.h) */
	bool watch_hw;		 /* --watch=hw */
	bool watch_sample;	 /* --watch=sample: the host's code breakpoints (vmm/sample/) */
	bool watch_given;	 /* --watch appeared at all */
	/* --sample-*: sampling's knobs (0 where not given: vmm/sample/sample.h's defaults) */
	unsigned sample_breakpoints, sample_delay_ms, sample_period_ms;
	bool sample_delay_given;
	const char *sample_only;  /* --sample-only=PATTERN[,PATTERN...], NULL: every site */
	bool kaslr;		  /* --kaslr: no nokaslr on a Linux command line */
	bool compare;		  /* --compare: the same guest in several watch modes */
	unsigned compare_modes;	  /* --compare=MODES as COMPARE_BIT set; 0: soft and hw */
	const char *compare_json; /* --compare-json=FILE, NULL when not given */
	const char *control_path; /* --control=PATH, NULL when not given */
	const char **sends;	  /* --send=COMMAND, in order; owned by options */
	size_t nsends;
	enum console_escapes console_escapes;
	bool sandbox;		    /* --sandbox: vCPU threads under the seccomp allow-list */
	bool sandbox_given;	    /* --sandbox appeared at all */
	enum opt_host host;	    /* --host */
	enum guest_kind guest_kind; /* --guest, GUEST_AUTO when not given */
	bool mem_given;		    /* --memory appeared: a Linux guest's larger default yields */
	struct opt_disk disks[OPT_MAX_DISKS]; /* --disk, in order */
	unsigned ndisks;
	/* --run, --add (adds owned by options), --initrd, --workload-in-initrd */
	struct workload_spec workload;
};

/*
 * options_parse - fill @o from @argc/@argv.
 * Errors are printed on @errf as "csan-vmm: OPTION: what is wrong" with a
 * pointer to --help.  Returns 0 on success, -EINVAL on a usage error,
 * -ENOMEM when the appended command line cannot be built.
 */
int options_parse(int argc, char **argv, struct options *o, FILE *errf);

/* options_free - release what options_parse allocated in @o. */
void options_free(struct options *o);

/* options_host_name - "auto", "kvm" or "emulated" for @h. */
const char *options_host_name(enum opt_host h);

/* options_usage - print the --help text on @f. */
void options_usage(FILE *f);

/*
 * options_parse_size - parse a memory size such as "64M", "1G", "512"
 * (a bare number is MiB, as with QEMU's -m) into bytes.
 * Returns 0, or -EINVAL for a malformed or overflowing value.
 */
int options_parse_size(const char *s, uint64_t *bytes);

#endif /* CSAN_VMM_OPTIONS_H */
