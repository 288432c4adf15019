/* emulated_args.h: the emulated host's command line for a csan-vmm run (pure, unit-tested). */
#ifndef CSAN_VMM_EMULATED_ARGS_H
#define CSAN_VMM_EMULATED_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "vmm/run/options.h"

/* Where the files of a run are inside the emulated host. */
#define EMU_DIR		 "/csan"
#define EMU_SELF	 EMU_DIR "/csan-vmm"
#define EMU_GUEST_DIR	 EMU_DIR "/guest/"
#define EMU_VMLINUX	 EMU_DIR "/symbols/vmlinux" /* a bzImage's vmlinux */
#define EMU_REPORT_JSON	 "/tmp/csan-report.json"
#define EMU_COMPARE_JSON "/tmp/csan-compare.json"
/*
 * --disk N reaches the emulated host as its QEMU's N-th virtio drive, so
 * the guest's writes land in the user's file: /dev/vda, vdb... there.
 */
#define EMU_DISK_PREFIX "/dev/vd"

/* Extra time the harness gives a run with --timeout: boot and hand-back. */
#define EMU_TIMEOUT_MARGIN_S 300u
/* Without --timeout (or with --compare) the harness's own limit: 30 days. */
#define EMU_TIMEOUT_NONE_S (30u * 86400u)
/* Memory of the emulated host beyond the guest's, and its floor, in MiB. */
#define EMU_MEMORY_EXTRA_MB 1024u
#define EMU_MEMORY_MIN_MB   2048u

struct emu_inputs {
	const char *harness;		     /* the emuhost script */
	const char *self;		     /* this csan-vmm binary, a host path */
	const char *guest;		     /* the guest ELF, a host path */
	/* A bzImage's vmlinux, a host path; KERNEL_VMLINUX_NONE: it has none; NULL: not a bzImage. */
	const char *vmlinux;
	unsigned long long guest_file_bytes; /* with the vmlinux: the initramfs holds them */
	const char *report_json;	     /* --report-json as an absolute host path, or NULL */
	const char *compare_json;	     /* --compare-json likewise */
	unsigned host_cpus;		     /* CPUs of this machine */
	bool relay_stdin;		     /* our standard input goes to the inner csan-vmm */
	const char *disks[OPT_MAX_DISKS];    /* --disk images as absolute host paths */
};

/*
 * emulated_argv - the argument vector that runs @o's request inside the
 * emulated host: "emuhost HARNESS-OPTIONS -- csan-vmm --host=kvm OPTIONS
 * GUEST", every option rebuilt from @o (so a new option must be added
 * here: tests/unit/test-emulated checks that parsing the inner command line
 * gives back @o), host paths replaced by their places inside.
 * Returns a NULL-terminated malloc'd vector (free with emulated_argv_free),
 * or NULL when out of memory.
 */
char **emulated_argv(const struct options *o, const struct emu_inputs *in);

/* emulated_argv_free - free what emulated_argv returned; NULL is a no-op. */
void emulated_argv_free(char **argv);

/*
 * emulated_inner_argv - the part of @argv after "--": the inner csan-vmm's
 * own command line (argv[0] "csan-vmm").  Returns NULL if there is none.
 */
char *const *emulated_inner_argv(char *const *argv);

#endif /* CSAN_VMM_EMULATED_ARGS_H */
