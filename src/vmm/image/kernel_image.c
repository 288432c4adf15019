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
 * One place a vmlinux may be, for the bzImage whose real path is @real
 * and file name @base (a tail of @real): written into @cand (@len
 * bytes); false where the place does not apply to this bzImage.
 */
typedef bool vmlinux_place(const char *real, const char *base, char *cand, size_t len);

/* A kernel build tree: make leaves vmlinux at its top. */
static bool in_build_tree(const char *real, const char *base, char *cand, size_t len)
{
	size_t n = strlen(real), tail = strlen(BUILD_TREE_TAIL);

	(void)base;
	if (n <= tail || strcmp(real + n - tail, BUILD_TREE_TAIL) != 0)
		return false;
	snprintf(cand, len, "%.*s/vmlinux", (int)(n - tail), real);
	return true;
}

/* A directory holding a kernel's files side by side. */
static bool beside_it(const char *real, const char *base, char *cand, size_t len)
{
	snprintf(cand, len, "%.*svmlinux", (int)(base - real), real);
	return true;
}

/* An installed distribution kernel and its debug package. */
static bool in_debug_package(const char *real, const char *base, char *cand, size_t len)
{
	(void)real;
	if (strncmp(base, VMLINUZ_PREFIX, strlen(VMLINUZ_PREFIX)) != 0)
		return false;
	snprintf(cand, len, DEBUG_VMLINUX_FMT, base + strlen(VMLINUZ_PREFIX));
	return true;
}

/*
 * The vmlinux of the bzImage at @path, into @out: the first of the places
 * a kernel developer's or a distribution's files put it that holds an
 * ELF.  @looked lists the places tried.  Returns whether one was found.
 */
static bool find_vmlinux(const char *path, char *out, size_t outlen, char *looked,
			 size_t lookedlen)
{
	static vmlinux_place *const places[] = { in_build_tree, beside_it, in_debug_package };
	char real[PATH_MAX], cand[sizeof(((struct kernel_symbols_note *)0)->found)];
	const char *base, *slash;
	size_t used = 0, i;

	if (!realpath(path, real))
		snprintf(real, sizeof(real), "%s", path);
	slash = strrchr(real, '/');
	base = slash ? slash + 1 : real;
	looked[0] = '\0';
	for (i = 0; i < sizeof(places) / sizeof(places[0]); i++) {
		if (!places[i](real, base, cand, sizeof(cand)))
			continue;
		if (used < lookedlen)
			used += (size_t)snprintf(looked + used, lookedlen - used, "%s%.*s",
						 used ? ", " : "", PATH_MAX / 4, cand);
		if (readable(cand) && is_elf(cand)) {
			snprintf(out, outlen, "%s", cand);
			return true;
		}
	}
	return false;
}

/*
 * The bzImage's version string (setup header's kernel_version, protocol
 * 2.x: "RELEASE (USER@HOST) #N ..."), into @out; false when it has none.
 */
static bool bz_version(const struct bzimage *bz, char *out, size_t outlen)
{
	uint16_t off;
	size_t at, n;

	memcpy(&off, bz->data + BZ_KERNEL_VERSION, sizeof(off));
	at = (size_t)off + BZ_KERNEL_VERSION_BASE;
	if (!off || at >= bz->size)
		return false;
	for (n = 0; at + n < bz->size && bz->data[at + n] && n + 1 < outlen; n++)
		out[n] = (char)bz->data[at + n];
	out[n] = '\0';
	return n > 0 && at + n < bz->size && !bz->data[at + n];
}

/*
 * Whether @g (a vmlinux) is @bz's: its linux_banner, "Linux version
 * RELEASE (USER@HOST) (COMPILER) #N ...", holds the same release, builder
 * and build number and date as the bzImage's version string.  A vmlinux of
 * another build would name the wrong code in every report, and hw mode
 * plants its traps at the vmlinux's addresses.  Without a version string
 * in either there is nothing to compare: true.
 */
static bool same_build(const struct bzimage *bz, const struct elf_guest *g, char *bzv,
		       size_t bzvlen, char *banner, size_t bannerlen)
{
	static const char prefix[] = "Linux version ";
	const char *paren, *uts, *hit, *end, *p;
	char head[300];

	banner[0] = '\0';
	if (!bz_version(bz, bzv, bzvlen) || !g->image)
		return true;
	/* "RELEASE (USER@HOST) " and "#N ...", around the compiler the banner adds. */
	paren = strstr(bzv, ") ");
	if (!paren)
		return true;
	uts = paren + 2;
	snprintf(head, sizeof(head), "%s%.*s", prefix, (int)(paren + 1 - bzv), bzv);
	for (p = (const char *)g->image;
	     (hit = memmem(p, g->image_size - (size_t)(p - (const char *)g->image), prefix,
			   sizeof(prefix) - 1));
	     p = hit + 1) {
		size_t left = g->image_size - (size_t)(hit - (const char *)g->image);

		end = memchr(hit, '\n', left < 512 ? left : 512);
		if (!end || strncmp(hit, prefix, sizeof(prefix) - 1) != 0)
			continue;
		snprintf(banner, bannerlen, "%.*s", (int)(end - hit), hit);
		if (strncmp(hit, head, strlen(head)) == 0 && memmem(hit, (size_t)(end - hit), uts,
								 strlen(uts)))
			return true;
	}
	return !banner[0];
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
		{
			char bzv[256], banner[512];

			if (!same_build(bz, g, bzv, sizeof(bzv), banner, sizeof(banner))) {
				snprintf(why, whylen,
					 "%s is not the vmlinux of %s: its banner says \"%.200s\", "
					 "the bzImage \"%.200s\"; give --vmlinux=PATH to the vmlinux "
					 "of the same build (or rebuild both)",
					 g->sym_path, path, banner, bzv);
				bzimage_close(bz);
				free(bz);
				elf_guest_close(g);
				return -ESTALE;
			}
		}
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
