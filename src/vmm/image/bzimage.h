/* bzimage.h: open and check a Linux bzImage, the file `make` leaves in arch/x86/boot/. */
#ifndef CSAN_VMM_BZIMAGE_H
#define CSAN_VMM_BZIMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Offsets and values of the x86 boot protocol (Linux's
 * Documentation/arch/x86/boot.rst) that csan-vmm reads or writes.  The
 * setup header sits at the same offset in the file and in boot_params
 * (the "zero page"), so one set of offsets serves both.
 */
#define BZ_HDR_OFFSET	      0x1f1u /* the setup header starts here */
#define BZ_SETUP_SECTS	      0x1f1u /* u8: 512-byte sectors of real-mode setup; 0 means 4 */
#define BZ_BOOT_FLAG	      0x1feu /* u16: 0xaa55 */
#define BZ_JUMP		      0x200u /* u16: a short jump; its byte at 0x201 ends the header */
#define BZ_HEADER	      0x202u /* u32: "HdrS" */
#define BZ_VERSION	      0x206u /* u16: protocol version, major << 8 | minor */
#define BZ_TYPE_OF_LOADER     0x210u /* u8: 0xff, a boot loader with no assigned id */
#define BZ_LOADFLAGS	      0x211u /* u8: bit 0 LOADED_HIGH */
#define BZ_RAMDISK_IMAGE      0x218u /* u32: the initrd's guest-physical address */
#define BZ_RAMDISK_SIZE	      0x21cu /* u32: its size */
#define BZ_CMD_LINE_PTR	      0x228u /* u32: the command line's guest-physical address */
#define BZ_INITRD_ADDR_MAX    0x22cu /* u32: the highest byte an initrd may use */
#define BZ_KERNEL_ALIGNMENT   0x230u /* u32 */
#define BZ_RELOCATABLE	      0x234u /* u8 */
#define BZ_XLOADFLAGS	      0x236u /* u16: bit 0 XLF_KERNEL_64, a 64-bit entry at +0x200 */
#define BZ_CMDLINE_SIZE	      0x238u /* u32: longest command line, without the NUL */
#define BZ_PREF_ADDRESS	      0x258u /* u64: where the kernel runs from */
#define BZ_INIT_SIZE	      0x260u /* u32: memory from the load address during boot */
#define BZ_HEADER_END_MIN     0x264u /* end of the fields above (protocol 2.12) */

#define BZ_BOOT_FLAG_VALUE  0xaa55u
#define BZ_HEADER_MAGIC	    0x53726448u /* "HdrS", little-endian */
#define BZ_LOADED_HIGH	    0x01u
#define BZ_XLF_KERNEL_64    0x0001u
#define BZ_MIN_VERSION	    0x020cu /* 2.12: xloadflags, so a 64-bit entry is known */
#define BZ_ENTRY64_OFFSET   0x200u  /* startup_64 from the protected-mode kernel's start */
#define BZ_SECTOR	    512u
#define BZ_DEFAULT_SECTS    4u /* setup_sects 0 means this many */

/* boot_params fields outside the setup header. */
#define BZ_PARAMS_SIZE	       4096u
#define BZ_PARAMS_ACPI_RSDP    0x070u /* u64 (protocol 2.14) */
#define BZ_PARAMS_E820_ENTRIES 0x1e8u /* u8 */
#define BZ_PARAMS_E820_TABLE   0x2d0u /* 128 entries of { u64 addr, u64 size, u32 type } */
#define BZ_PARAMS_E820_MAX     128u
#define BZ_E820_ENTRY_SIZE     20u

/* What a checked bzImage says about itself. */
struct bzimage_info {
	uint16_t version;	   /* boot protocol, major << 8 | minor */
	unsigned setup_sects;	   /* 512-byte sectors after the boot sector */
	uint64_t kernel_offset;	   /* the protected-mode kernel in the file */
	uint64_t kernel_size;	   /* its bytes */
	uint64_t init_size;	   /* RAM it needs from where it runs, while it boots */
	uint64_t pref_address;	   /* where it runs from (it moves itself there) */
	uint32_t initrd_addr_max;  /* the highest byte an initrd may use */
	uint32_t cmdline_size;	   /* longest command line it takes, without the NUL */
	size_t header_end;	   /* the setup header's end in the file */
	bool relocatable;
};

/*
 * bzimage_parse - check that @data (@size bytes, a whole file) is a bzImage
 * with a 64-bit entry, and describe it in @info
 * @name: the file's name for messages
 * @why, @whylen: on failure, one line starting with @name that names the
 *     field that is wrong and what to do
 *
 * Reads nothing outside @data.  Returns 0; -ENOEXEC when @data is not a
 * bzImage (or is another architecture's kernel, said by name), is
 * truncated, or has no 64-bit entry; -ENOTSUP for an older boot protocol.
 */
int bzimage_parse(const uint8_t *data, size_t size, const char *name, struct bzimage_info *info,
		  char *why, size_t whylen);

/*
 * bzimage_sniff - whether @data (@size bytes) starts like a bzImage (the
 * "HdrS" magic), so the caller can pick the loader; a damaged one is
 * still said here, and bzimage_parse says what is wrong.
 */
bool bzimage_sniff(const uint8_t *data, size_t size);

/* An open bzImage. */
struct bzimage {
	char *path;
	uint8_t *data; /* the whole file */
	size_t size;
	struct bzimage_info info;
};

/*
 * bzimage_open - read @path and check it with bzimage_parse.  On failure
 * @bz is left closed (bzimage_close is a no-op on it).  Returns 0 or a
 * negative errno with the message in @why.
 */
int bzimage_open(const char *path, struct bzimage *bz, char *why, size_t whylen);

/* bzimage_close - release @bz; safe twice and after a failed open. */
void bzimage_close(struct bzimage *bz);

#endif /* CSAN_VMM_BZIMAGE_H */
