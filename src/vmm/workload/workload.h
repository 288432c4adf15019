/* workload.h: the user's workload: --run, --add, --initrd, the initramfs, CMD's exit status. */
#ifndef CSAN_VMM_WORKLOAD_H
#define CSAN_VMM_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "csan/workload_abi.h"

struct vm;

/* What the command line asked for (run/options.c fills it). */
struct workload_spec {
	const char *run;    /* --run's CMD, NULL: none */
	const char **adds;  /* --add's values as given, HOSTPATH[:GUESTPATH] */
	size_t nadds;
	const char *initrd; /* --initrd=FILE, NULL: none */
	/*
	 * --initrd already holds csan-vmm's part for --run (the outer
	 * csan-vmm built it for the emulated host): hand it over unchanged.
	 */
	bool prebuilt;
};

/* The host files of csan-vmm's own part (run/ finds them: guest_path.c). */
struct workload_files {
	const char *init;    /* the built csan-vmm-init */
	const char *busybox; /* a busybox; WORKLOAD_BUSYBOX by default */
};

/* Debian's busybox-static. */
#define WORKLOAD_BUSYBOX "/bin/busybox"

/* What the kernel's command line gets with --run: our init, whatever the archives hold. */
#define WORKLOAD_CMDLINE "rdinit=" CSAN_WL_INIT

/*
 * workload_add_parse - split --add's @arg into the host path @host and
 * the guest path @guest (both malloc'd, the caller frees).  GUESTPATH
 * defaults to /BASENAME of HOSTPATH; a relative GUESTPATH is taken from
 * /; "." and repeated slashes are dropped.  Returns 0, or -EINVAL with a
 * message in @why (which names --add) for an empty part, a GUESTPATH with
 * a ".." component (it would leave the archive's root) or a HOSTPATH
 * with no name to default to; -ENOMEM.
 */
int workload_add_parse(const char *arg, char **host, char **guest, char *why, size_t whylen);

/*
 * workload_check - what can be checked before anything boots: each
 * --add parses and its HOSTPATH exists, --initrd is a readable file,
 * --add is given with --run only.  Returns 0, or -EINVAL / -ENOENT with
 * one line in @why naming the option and what to do.
 */
int workload_check(const struct workload_spec *w, char *why, size_t whylen);

/*
 * workload_initrd_build - the initramfs the kernel gets: the bytes of
 * --initrd first (padded with zeros to 4 bytes, as the kernel reads a
 * following archive's header only there), then, with --run, csan-vmm's
 * newc archive: busybox, csan-vmm-init, CMD, the --add'ed files and the
 * libraries and interpreters of the dynamically linked ELF files among
 * them.  With @w->prebuilt, --initrd's bytes only.  @data is malloc'd
 * (the caller frees); *@data is NULL and *@len 0 when there is nothing
 * to hand over.  Returns 0, or -errno with a message in @why.
 */
int workload_initrd_build(const struct workload_spec *w, const struct workload_files *f,
			  uint8_t **data, size_t *len, char *why, size_t whylen);

/*
 * workload_attach - take the status port (workload_abi.h) on @vm, so
 * CMD's exit status can be read after the run.  Returns 0 or -errno
 * (the port is taken) with a message in @why.
 */
int workload_attach(struct vm *vm, char *why, size_t whylen);

/*
 * workload_exit_status - CMD's exit status as the guest's init reported
 * it (0-255), or -1 when no workload ran on @vm or it never reported.
 */
int workload_exit_status(const struct vm *vm);

#endif /* CSAN_VMM_WORKLOAD_H */
