/* kernel_image.h: the kernel the user named, ELF or bzImage, and the vmlinux for its symbols. */
#ifndef CSAN_VMM_KERNEL_IMAGE_H
#define CSAN_VMM_KERNEL_IMAGE_H

#include <limits.h>
#include <stddef.h>

struct elf_guest;

/* --vmlinux=none: boot without symbols, and do not look for any. */
#define KERNEL_VMLINUX_NONE "none"

/* How the symbols of an opened kernel were found, for the one line the user reads. */
struct kernel_symbols_note {
	/* Where the vmlinux was found, when csan-vmm looked for it ("" otherwise). */
	char found[PATH_MAX + 64];
	/* Why there are none, and what to do ("" when there are, or --vmlinux=none). */
	char missing[2 * PATH_MAX];
};

/*
 * kernel_image_open - open the kernel at @path: a PVH ELF (the bundled
 * guest, a Linux vmlinux) boots as itself; a bzImage boots by the x86
 * boot protocol with its symbols from @vmlinux, or, when @vmlinux is
 * NULL, from a vmlinux found for it: the one at the top of the kernel
 * build tree a .../arch/x86/boot/bzImage sits in, one beside it, or the
 * debug package's for /boot/vmlinuz-RELEASE.  None found is no error:
 * g->sym_path stays NULL and @note says so.
 * @g: filled in; on failure left closed (elf_guest_close is a no-op)
 * Returns 0, or a negative errno with a one-line message in @why naming
 * the file or option.
 */
int kernel_image_open(const char *path, const char *vmlinux, struct elf_guest *g,
		      struct kernel_symbols_note *note, char *why, size_t whylen);

#endif /* CSAN_VMM_KERNEL_IMAGE_H */
