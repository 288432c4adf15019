/* emulated.h: csan-vmm runs itself inside the emulated host (--host=emulated). */
#ifndef CSAN_VMM_EMULATED_H
#define CSAN_VMM_EMULATED_H

#include <stdio.h>

#include "vmm/run/options.h"

/*
 * emulated_run - run @o's request on guest @guest_path inside the emulated
 * host (src/harness/emuhost: QEMU TCG, -cpu EPYC, Debian's cloud kernel with
 * kvm-amd), with this same csan-vmm binary carried in.  The console and
 * reports stream to our stdout/stderr as they come; --report-json and
 * --compare-json land at their host paths at the end; our terminal's keys
 * reach the inner csan-vmm (Ctrl-a escapes) when escapes are on; a first
 * SIGINT/SIGTERM/SIGHUP is passed on so the inner run ends in its orderly
 * way (summary printed), a second stops the emulated host.
 * Returns csan-vmm's exit status: the inner run's own, or EXIT_USAGE with
 * a message saying that the emulated host (not the guest) failed or
 * cannot run here.
 */
int emulated_run(const struct options *o, const char *guest_path, const char *vmlinux);

/*
 * emulated_probe - csan-vmm --probe inside the emulated host, each line it
 * prints copied to @out behind "emulated host: ".  Returns 0 when
 * hardware-watchpoint mode is available there, 2 when not (or when the
 * emulated host cannot run here, said on @out and stderr).
 */
int emulated_probe(FILE *out);

#endif /* CSAN_VMM_EMULATED_H */
