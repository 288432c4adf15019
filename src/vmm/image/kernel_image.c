/* kernel_image.c: the kernel the user named, ELF or bzImage, and the vmlinux for its symbols. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elf.h>

#include "vmm/image/bzimage.h"
#include "vmm/image/elf_guest.h"
#include "vmm/image/kernel_image.h"

#define BUILD_TREE_TAIL "/arch/x86/boot/bzImage"
#define VMLINUZ_PREFIX	"vmlinuz-"
/* Where Debian's linux-image-*-dbg puts a kernel's vmlinux. */
#define DEBUG_VMLINUX_FMT "/usr/lib/debug/boot/vmlinux-%s"

/* Whether @path starts with the ELF magic (unreadable: not, and the loader says why). */
static bool is_elf(const char *path)
{
	unsigned char magic[SELFMAG];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool elf;

	if (fd < 0)
		return false;
	elf = read(fd, magic, sizeof(magic)) == (ssize_t)sizeof(magic) &&
	      memcmp(magic, ELFMAG, SELFMAG) == 0;
	close(fd);
	return elf;
}

static bool readable(const char *path)
{
	return access(path, R_OK) == 0;
}

/*
 * The vmlinux of the bzImage at @path, into @out: the places a kernel
 * developer's or a distribution's files put it.  @looked lists the places
 * tried.  Returns whether one was found.
 */
static bool find_vmlinux(const char *path, char *out, size_t outlen, char *looked,
			 size_t lookedlen)
{
	char real[PATH_MAX], cand[sizeof(((struct kernel_symbols_note *)0)->found)];
	const char *base, *slash;
	size_t n, used = 0;
	bool found = false;

	if (!realpath(path, real))
		snprintf(real, sizeof(real), "%s", path);
	n = strlen(real);
	slash = strrchr(real, '/');
	base = slash ? slash + 1 : real;
	looked[0] = '\0';
#define TRY(...)                                                                                   \
	do {                                                                                       \
		snprintf(cand, sizeof(cand), __VA_ARGS__);                                         \
		if (!found && used < lookedlen)                                                    \
			used += (size_t)snprintf(looked + used, lookedlen - used, "%s%.*s",        \
						 used ? ", " : "", PATH_MAX / 4, cand);            \
		if (!found && readable(cand) && is_elf(cand)) {                                    \
			snprintf(out, outlen, "%s", cand);                                         \
			found = true;                                                              \
		}                                                                                  \
	} while (0)
	/* A kernel build tree: make leaves vmlinux at its top. */
	if (n > strlen(BUILD_TREE_TAIL) && strcmp(real + n - strlen(BUILD_TREE_TAIL), BUILD_TREE_TAIL) == 0)
		TRY("%.*s/vmlinux", (int)(n - strlen(BUILD_TREE_TAIL)), real);
	/* A directory holding a kernel's files side by side. */
	TRY("%.*svmlinux", (int)(base - real), real);
	/* An installed distribution kernel and its debug package. */
	if (strncmp(base, VMLINUZ_PREFIX, strlen(VMLINUZ_PREFIX)) == 0)
		TRY(DEBUG_VMLINUX_FMT, base + strlen(VMLINUZ_PREFIX));
#undef TRY
	return found;
}

static int open_bzimage(const char *path, const char *vmlinux, struct elf_guest *g,
			struct kernel_symbols_note *note, char *why, size_t whylen)
{
	struct bzimage *bz = calloc(1, sizeof(*bz));
	char found[sizeof(note->found)], looked[PATH_MAX];
	char *bzpath;
	int err;

	if (!bz) {
		snprintf(why, whylen, "%s: out of memory", path);
		return -ENOMEM;
	}
	err = bzimage_open(path, bz, why, whylen);
	if (err) {
		free(bz);
		return err;
	}
	if (!vmlinux && find_vmlinux(path, found, sizeof(found), looked, sizeof(looked))) {
		vmlinux = found;
		memcpy(note->found, found, sizeof(found));
	} else if (!vmlinux) {
		snprintf(note->missing, sizeof(note->missing),
			 "no vmlinux found for %.*s (looked for %s): reports stay unsymbolized; "
			 "give --vmlinux=PATH to the vmlinux of the same build",
			 PATH_MAX / 2, path, looked);
	}
	if (vmlinux && strcmp(vmlinux, KERNEL_VMLINUX_NONE) == 0)
		vmlinux = NULL;
	if (vmlinux) {
		if (!is_elf(vmlinux) && readable(vmlinux)) {
			snprintf(why, whylen,
				 "--vmlinux: %s is not an ELF file; give the vmlinux at the top of "
				 "the kernel build tree",
				 vmlinux);
			err = -ENOEXEC;
		} else {
			err = elf_guest_open_vmlinux(vmlinux, g, why, whylen);
		}
		if (err) {
			bzimage_close(bz);
			free(bz);
			return err;
		}
		g->sym_path = g->path; /* the vmlinux's; path becomes what boots */
		g->path = NULL;
	} else {
		memset(g, 0, sizeof(*g));
		g->fd = -1;
	}
	bzpath = strdup(path);
	if (!bzpath) {
		bzimage_close(bz);
		free(bz);
		elf_guest_close(g);
		snprintf(why, whylen, "%s: out of memory", path);
		return -ENOMEM;
	}
	g->path = bzpath;
	g->bz = bz;
	return 0;
}

int kernel_image_open(const char *path, const char *vmlinux, struct elf_guest *g,
		      struct kernel_symbols_note *note, char *why, size_t whylen)
{
	memset(note, 0, sizeof(*note));
	memset(g, 0, sizeof(*g));
	g->fd = -1;
	if (is_elf(path)) {
		if (vmlinux && strcmp(vmlinux, KERNEL_VMLINUX_NONE) != 0) {
			snprintf(why, whylen,
				 "--vmlinux: %s is an ELF kernel, which carries its own symbols; "
				 "--vmlinux names the symbols of a bzImage",
				 path);
			return -EINVAL;
		}
		return elf_guest_open(path, g, why, whylen);
	}
	return open_bzimage(path, vmlinux, g, note, why, whylen);
}
