/* host_select.h: --host=auto: this machine's /dev/kvm or the emulated host. */
#ifndef CSAN_VMM_HOST_SELECT_H
#define CSAN_VMM_HOST_SELECT_H

#include <stddef.h>

#include "vmm/run/options.h"

struct guest_profile;

/*
 * host_select - where @o's run of a @prof guest goes: @o->host when it is
 * kvm or emulated; for auto, OPT_HOST_KVM when /dev/kvm opens, can run
 * such a guest (Linux does not run on PVM) and, if the run needs hardware
 * watchpoints (--watch=hw, --compare), delivers them to guests (a probe of
 * a few milliseconds); else OPT_HOST_EMULATED, with the reason in @why
 * (@whylen bytes) for the one line csan-vmm prints about it.
 */
enum opt_host host_select(const struct options *o, const struct guest_profile *prof, char *why,
			  size_t whylen);

/* What the emulated host costs, for that line and --help. */
#define HOST_EMULATED_COST                                                      \
	"QEMU TCG with an AMD CPU and real kvm-amd: guest code runs at about "  \
	"400 M instructions/s, 10-25x slower than on KVM, and start-up takes "  \
	"10-20 s more"

#endif /* CSAN_VMM_HOST_SELECT_H */
