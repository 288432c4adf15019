/* profile.c: picking the guest profile for an image. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "vmm/image/elf_guest.h"
#include "vmm/guest/profile.h"

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
