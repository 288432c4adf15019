/* profile.c: picking the guest profile, and the bundled csan guest's profile. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "vmm/image/elf_guest.h"
#include "vmm/run/options.h"
#include "vmm/guest/profile.h"

/*
 * The csan guest needs nothing beyond the common VM: it talks through the
 * hypercall ports, and serial.c keeps its result line.  A triple fault is
 * a fault (tests/vm/triple-fault.sh), so there is no exit hook.
 */
const struct guest_profile csan_profile = {
	.name = "csan",
	.cmdline = options_guest_cmdline,
};

int guest_kind_parse(const char *s, enum guest_kind *out)
{
	static const struct {
		const char *name;
		enum guest_kind kind;
	} kinds[] = { { "auto", GUEST_AUTO }, { "csan", GUEST_CSAN }, { "linux", GUEST_LINUX } };
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (!strcmp(s, kinds[i].name)) {
			*out = kinds[i].kind;
			return 0;
		}
	}
	return -EINVAL;
}

const struct guest_profile *guest_profile_pick(const struct elf_guest *g, enum guest_kind kind,
					       char *why, size_t whylen)
{
	bool has_abi = g->abi_version != 0;

	switch (kind) {
	case GUEST_CSAN:
		if (has_abi)
			return &csan_profile;
		snprintf(why, whylen,
			 "%s: --guest=csan, but it has no csan-vmm ABI note (this csan-vmm speaks "
			 "ABI %d): was it built for csan-vmm? For a Linux kernel, drop --guest",
			 g->path, CSAN_ABI_VERSION);
		return NULL;
	case GUEST_LINUX: return &linux_profile;
	case GUEST_AUTO:
	default: return has_abi ? &csan_profile : &linux_profile;
	}
}
