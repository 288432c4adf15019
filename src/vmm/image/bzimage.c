/* bzimage.c: open and check a Linux bzImage, the file `make` leaves in arch/x86/boot/. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vmm/image/bzimage.h"

/* Other kernels' magic numbers, so a wrong file is named, not just refused. */
#define ARM64_IMAGE_MAGIC_OFF 0x38u
#define ARM64_IMAGE_MAGIC     0x644d5241u /* "ARM\x64" */
#define RISCV_IMAGE_MAGIC_OFF 0x38u
#define RISCV_IMAGE_MAGIC     0x05435352u /* "RSC\x05" */

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the boot protocol's fields are read in host byte order"
#endif

static uint64_t get(const uint8_t *d, size_t off, unsigned bytes)
{
	uint64_t v = 0;

	memcpy(&v, d + off, bytes);
	return v;
}

static int say(char *why, size_t whylen, const char *name, int err, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int say(char *why, size_t whylen, const char *name, int err, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!why || !whylen)
		return err;
	n = snprintf(why, whylen, "%s: ", name);
	if (n >= 0 && (size_t)n < whylen) {
		va_start(ap, fmt);
		vsnprintf(why + n, whylen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return err;
}

bool bzimage_sniff(const uint8_t *data, size_t size)
{
	return size >= BZ_HEADER + 4 && get(data, BZ_HEADER, 4) == BZ_HEADER_MAGIC;
}

/* What @data is instead, for the message; NULL when nothing is recognized. */
static const char *other_kernel(const uint8_t *data, size_t size)
{
	if (size >= ARM64_IMAGE_MAGIC_OFF + 4 &&
	    get(data, ARM64_IMAGE_MAGIC_OFF, 4) == ARM64_IMAGE_MAGIC)
		return "an arm64 kernel Image";
	if (size >= RISCV_IMAGE_MAGIC_OFF + 4 &&
	    get(data, RISCV_IMAGE_MAGIC_OFF, 4) == RISCV_IMAGE_MAGIC)
		return "a RISC-V kernel Image";
	if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b)
		return "gzip-compressed data (unpack it first)";
	if (size >= 3 && data[0] == 'B' && data[1] == 'Z' && data[2] == 'h')
		return "bzip2-compressed data (unpack it first)";
	if (size >= 6 && memcmp(data, "\xfd" "7zXZ\0", 6) == 0)
		return "xz-compressed data (unpack it first)";
	if (size >= 4 && memcmp(data, "\x28\xb5\x2f\xfd", 4) == 0)
		return "zstd-compressed data (unpack it first)";
	if (size >= 6 && (memcmp(data, "070701", 6) == 0 || memcmp(data, "070702", 6) == 0))
		return "a cpio archive (an initramfs? give it with --initrd)";
	return NULL;
}

int bzimage_parse(const uint8_t *data, size_t size, const char *name, struct bzimage_info *info,
		  char *why, size_t whylen)
{
	const char *other = other_kernel(data, size);
	uint64_t setup_end, need;
	unsigned sects;

	memset(info, 0, sizeof(*info));
	if (!bzimage_sniff(data, size)) {
		if (other)
			return say(why, whylen, name, -ENOEXEC,
				   "is %s, not an x86-64 kernel; csan-vmm boots an x86-64 bzImage "
				   "or PVH vmlinux",
				   other);
		return say(why, whylen, name, -ENOEXEC,
			   "is not a kernel csan-vmm can boot: neither an ELF vmlinux nor a "
			   "bzImage (no \"HdrS\" at offset 0x%x); give arch/x86/boot/bzImage or "
			   "vmlinux of a kernel build",
			   BZ_HEADER);
	}
	/* The magic's four bytes can end the file; the fields read below cannot. */
	if (size < BZ_HEADER_END_MIN)
		return say(why, whylen, name, -ENOEXEC,
			   "is %zu bytes, ending inside its setup header (which runs to 0x%x at "
			   "least): a truncated bzImage",
			   size, BZ_HEADER_END_MIN);
	if (get(data, BZ_BOOT_FLAG, 2) != BZ_BOOT_FLAG_VALUE)
		return say(why, whylen, name, -ENOEXEC,
			   "boot_flag at 0x%x is %#06" PRIx64 ", not 0xaa55: a damaged bzImage",
			   BZ_BOOT_FLAG, get(data, BZ_BOOT_FLAG, 2));
	info->version = (uint16_t)get(data, BZ_VERSION, 2);
	if (info->version < BZ_MIN_VERSION)
		return say(why, whylen, name, -ENOTSUP,
			   "boot protocol %u.%02u; csan-vmm needs 2.12 or later (Linux 3.8 or "
			   "later), which says whether the kernel has a 64-bit entry",
			   info->version >> 8, info->version & 0xffu);
	/* The header's length is in its own jump instruction: 0x202 + the jump's byte. */
	info->header_end = BZ_HEADER + data[BZ_JUMP + 1];
	if (info->header_end < BZ_HEADER_END_MIN || info->header_end > size)
		return say(why, whylen, name, -ENOEXEC,
			   "its setup header ends at %#zx (the jump at 0x%x), %s", info->header_end,
			   BZ_JUMP,
			   info->header_end > size ? "past the end of the file: a truncated bzImage"
						   : "before the fields of protocol 2.12");
	sects = data[BZ_SETUP_SECTS];
	info->setup_sects = sects ? sects : BZ_DEFAULT_SECTS;
	setup_end = (uint64_t)(info->setup_sects + 1) * BZ_SECTOR;
	if (!(data[BZ_LOADFLAGS] & BZ_LOADED_HIGH))
		return say(why, whylen, name, -ENOEXEC,
			   "loadflags at 0x%x lack LOADED_HIGH: a zImage or a boot sector, not a "
			   "bzImage",
			   BZ_LOADFLAGS);
	if (!(get(data, BZ_XLOADFLAGS, 2) & BZ_XLF_KERNEL_64))
		return say(why, whylen, name, -ENOEXEC,
			   "is a 32-bit kernel (xloadflags at 0x%x has no XLF_KERNEL_64); csan-vmm "
			   "boots x86-64 kernels: build with CONFIG_64BIT=y",
			   BZ_XLOADFLAGS);
	if (setup_end >= size)
		return say(why, whylen, name, -ENOEXEC,
			   "is %zu bytes, but its setup alone takes %" PRIu64
			   " (setup_sects %u): a truncated bzImage",
			   size, setup_end, info->setup_sects);
	info->kernel_offset = setup_end;
	info->kernel_size = size - setup_end;
	/* syssize (0x1f4) counts the protected-mode kernel in 16-byte units. */
	need = get(data, 0x1f4, 4) * 16;
	if (need > info->kernel_size)
		return say(why, whylen, name, -ENOEXEC,
			   "holds %" PRIu64 " bytes of kernel after its setup, but syssize says %" PRIu64
			   ": a truncated bzImage",
			   info->kernel_size, need);
	if (info->kernel_size <= BZ_ENTRY64_OFFSET)
		return say(why, whylen, name, -ENOEXEC,
			   "its kernel (%" PRIu64 " bytes) ends before the 64-bit entry at +0x%x",
			   info->kernel_size, BZ_ENTRY64_OFFSET);
	info->init_size = get(data, BZ_INIT_SIZE, 4);
	info->pref_address = get(data, BZ_PREF_ADDRESS, 8);
	info->initrd_addr_max = (uint32_t)get(data, BZ_INITRD_ADDR_MAX, 4);
	info->cmdline_size = (uint32_t)get(data, BZ_CMDLINE_SIZE, 4);
	info->relocatable = data[BZ_RELOCATABLE] != 0;
	if (info->init_size < info->kernel_size)
		return say(why, whylen, name, -ENOEXEC,
			   "init_size at 0x%x (%" PRIu64 ") is smaller than its kernel (%" PRIu64
			   " bytes): a damaged bzImage",
			   BZ_INIT_SIZE, info->init_size, info->kernel_size);
	return 0;
}

int bzimage_open(const char *path, struct bzimage *bz, char *why, size_t whylen)
{
	struct stat st;
	size_t got = 0;
	ssize_t n = 0;
	int fd, err;

	memset(bz, 0, sizeof(*bz));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return say(why, whylen, path, -errno, "cannot open: %s", strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return say(why, whylen, path, -EINVAL, "is not a regular file");
	}
	bz->data = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!bz->data) {
		close(fd);
		return say(why, whylen, path, -ENOMEM, "out of memory reading it");
	}
	while (got < (size_t)st.st_size) {
		n = read(fd, bz->data + got, (size_t)st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	err = n < 0 ? errno : 0;
	close(fd);
	if (got != (size_t)st.st_size) {
		free(bz->data);
		bz->data = NULL;
		return say(why, whylen, path, -EIO, "cannot read it: %s",
			   err ? strerror(err) : "it shrank while being read");
	}
	bz->size = got;
	err = bzimage_parse(bz->data, bz->size, path, &bz->info, why, whylen);
	if (!err) {
		bz->path = strdup(path);
		if (!bz->path)
			err = say(why, whylen, path, -ENOMEM, "out of memory");
	}
	if (err) {
		free(bz->data);
		memset(bz, 0, sizeof(*bz));
	}
	return err;
}

void bzimage_close(struct bzimage *bz)
{
	free(bz->data);
	free(bz->path);
	memset(bz, 0, sizeof(*bz));
}
