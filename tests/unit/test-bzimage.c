/* test-bzimage.c: the bzImage parser, its boot_params, and finding a bzImage's vmlinux. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "csan/abi.h"
#include "vmm/image/boot.h"
#include "vmm/image/bzimage.h"
#include "vmm/image/elf_guest.h"
#include "vmm/image/kernel_image.h"
#include "vmm/kvm/vcpu.h"
#include "vmm/kvm/vm.h"
#include "check.h"

#define KERNEL_BYTES 0x2000u
#define SETUP_SECTS  3u
#define INIT_SIZE    0x200000u
#define PREF_ADDRESS 0x1000000u

static void put(uint8_t *d, size_t off, uint64_t v, unsigned bytes)
{
	memcpy(d + off, &v, bytes);
}

/* A bzImage as `make` writes its header (Linux 6.1: protocol 2.15), with a dummy kernel. */
static uint8_t *make_bzimage(size_t *size)
{
	size_t n = (SETUP_SECTS + 1) * BZ_SECTOR + KERNEL_BYTES;
	uint8_t *d = calloc(1, n);

	if (!d)
		abort();
	d[BZ_SETUP_SECTS] = SETUP_SECTS;
	put(d, 0x1f4, KERNEL_BYTES / 16, 4);
	put(d, BZ_BOOT_FLAG, BZ_BOOT_FLAG_VALUE, 2);
	d[BZ_JUMP] = 0xeb;
	d[BZ_JUMP + 1] = 0x6a; /* the header ends at 0x26c */
	put(d, BZ_HEADER, BZ_HEADER_MAGIC, 4);
	put(d, BZ_VERSION, 0x020f, 2);
	d[BZ_LOADFLAGS] = BZ_LOADED_HIGH;
	put(d, BZ_INITRD_ADDR_MAX, 0x7fffffff, 4);
	put(d, BZ_KERNEL_ALIGNMENT, 0x200000, 4);
	d[BZ_RELOCATABLE] = 1;
	put(d, BZ_XLOADFLAGS, BZ_XLF_KERNEL_64, 2);
	put(d, BZ_CMDLINE_SIZE, 2047, 4);
	put(d, BZ_PREF_ADDRESS, PREF_ADDRESS, 8);
	put(d, BZ_INIT_SIZE, INIT_SIZE, 4);
	memset(d + (SETUP_SECTS + 1) * BZ_SECTOR, 0x90, KERNEL_BYTES); /* the "kernel" */
	*size = n;
	return d;
}

/* @d (@n bytes) is refused, and the message names the file and @need. */
static void check_refused(const uint8_t *d, size_t n, int want, const char *need)
{
	struct bzimage_info info;
	char why[512] = "";
	int rc = bzimage_parse(d, n, "img", &info, why, sizeof(why));

	CHECK(rc == want);
	CHECK(strncmp(why, "img: ", 5) == 0);
	CHECK_CONTAINS(why, need);
}

static void test_parse(void)
{
	struct bzimage_info info;
	char why[512] = "";
	size_t n;
	uint8_t *d = make_bzimage(&n), *bad = malloc(n);

	CHECK(bzimage_parse(d, n, "img", &info, why, sizeof(why)) == 0);
	CHECK_EQ_U64(info.version, 0x020f);
	CHECK_EQ_U64(info.kernel_offset, (SETUP_SECTS + 1) * BZ_SECTOR);
	CHECK_EQ_U64(info.kernel_size, KERNEL_BYTES);
	CHECK_EQ_U64(info.init_size, INIT_SIZE);
	CHECK_EQ_U64(info.pref_address, PREF_ADDRESS);
	CHECK_EQ_U64(info.cmdline_size, 2047);
	CHECK_EQ_U64(info.header_end, 0x26c);

	/* Each field a loader relies on, wrong in turn. */
	memcpy(bad, d, n);
	put(bad, BZ_XLOADFLAGS, 0, 2);
	check_refused(bad, n, -ENOEXEC, "32-bit kernel");
	memcpy(bad, d, n);
	put(bad, BZ_VERSION, 0x0206, 2);
	check_refused(bad, n, -ENOTSUP, "boot protocol 2.06");
	memcpy(bad, d, n);
	put(bad, BZ_BOOT_FLAG, 0, 2);
	check_refused(bad, n, -ENOEXEC, "boot_flag");
	memcpy(bad, d, n);
	bad[BZ_LOADFLAGS] = 0;
	check_refused(bad, n, -ENOEXEC, "LOADED_HIGH");
	memcpy(bad, d, n);
	put(bad, BZ_INIT_SIZE, 16, 4);
	check_refused(bad, n, -ENOEXEC, "init_size");
	/* Cut short: inside the kernel, inside the setup, inside the header. */
	check_refused(d, n - 16, -ENOEXEC, "truncated");
	check_refused(d, (SETUP_SECTS + 1) * BZ_SECTOR - 1, -ENOEXEC, "truncated");
	check_refused(d, 0x240, -ENOEXEC, "truncated");
	/* The magic whole, the version after it cut off (found by fuzz-bzimage). */
	check_refused(d, BZ_HEADER + 5, -ENOEXEC, "ending inside its setup header");

	/* Not an x86 kernel at all, named when it can be. */
	memset(bad, 0, n);
	put(bad, 0x38, 0x644d5241, 4);
	check_refused(bad, n, -ENOEXEC, "arm64");
	memset(bad, 0, n);
	bad[0] = 0x1f;
	bad[1] = 0x8b;
	check_refused(bad, n, -ENOEXEC, "gzip");
	memset(bad, 'x', n);
	check_refused(bad, n, -ENOEXEC, "neither an ELF vmlinux nor a bzImage");
	check_refused(bad, 0, -ENOEXEC, "neither an ELF vmlinux nor a bzImage");
	free(bad);
	free(d);
}

/* A VM with RAM and one vCPU but no KVM: the entry state's ioctls fail after the writes. */
static struct vm *ram_vm(uint64_t ram_size)
{
	struct vm_config cfg = { .ncpus = 1 };
	struct vm *vm = vm_new(&cfg);

	if (!vm)
		abort();
	vm->ram_size = ram_size;
	vm->ram = calloc(1, ram_size);
	vm->vcpus = calloc(1, sizeof(*vm->vcpus));
	vm->vcpus[0] = calloc(1, sizeof(*vm->vcpus[0]));
	if (!vm->ram || !vm->vcpus || !vm->vcpus[0])
		abort();
	vm->vcpus[0]->fd = -1;
	return vm;
}

static void ram_vm_free(struct vm *vm)
{
	free(vm->ram);
	free(vm->vcpus[0]);
	free(vm->vcpus);
	vm->ram = NULL;
	vm->vcpus = NULL;
	vm_destroy(vm);
}

static uint64_t get(const uint8_t *p, size_t off, unsigned bytes)
{
	uint64_t v = 0;

	memcpy(&v, p + off, bytes);
	return v;
}

static void test_boot_params(void)
{
	static const uint8_t cpio[] = "070701 an initramfs";
	struct boot_initrd initrd = { cpio, sizeof(cpio) };
	struct bzimage bz = { .path = "img" };
	struct vm *vm = ram_vm(64u << 20);
	char why[512] = "";
	const uint8_t *bp;
	uint64_t rd;
	int rc;

	bz.data = make_bzimage(&bz.size);
	CHECK(bzimage_parse(bz.data, bz.size, "img", &bz.info, why, sizeof(why)) == 0);
	rc = boot_bzimage(vm, &bz, "console=ttyS0 nokaslr", &initrd, why, sizeof(why));
	/* No KVM behind the vCPU: everything is written, then the registers cannot be. */
	CHECK(rc == -EBADF);
	CHECK_CONTAINS(why, "boot vCPU's registers");
	bp = vm->ram + BOOT_PARAMS_GPA;
	/* The file's header, with the fields a loader fills in filled. */
	CHECK_EQ_U64(get(bp, BZ_PREF_ADDRESS, 8), PREF_ADDRESS);
	CHECK_EQ_U64(get(bp, BZ_HEADER, 4), BZ_HEADER_MAGIC);
	CHECK_EQ_U64(bp[BZ_TYPE_OF_LOADER], 0xff);
	CHECK_EQ_U64(get(bp, BZ_CMD_LINE_PTR, 4), BOOT_CMDLINE_GPA);
	CHECK(strcmp((const char *)vm->ram + BOOT_CMDLINE_GPA, "console=ttyS0 nokaslr") == 0);
	rd = get(bp, BZ_RAMDISK_IMAGE, 4);
	CHECK_EQ_U64(get(bp, BZ_RAMDISK_SIZE, 4), sizeof(cpio));
	CHECK(rd % 4096 == 0 && rd >= PREF_ADDRESS + INIT_SIZE && rd + sizeof(cpio) <= vm->ram_size);
	CHECK(memcmp(vm->ram + rd, cpio, sizeof(cpio)) == 0);
	/* The E820 map: low RAM, then RAM from 1 MiB to the end. */
	CHECK(bp[BZ_PARAMS_E820_ENTRIES] >= 2);
	CHECK_EQ_U64(get(bp, BZ_PARAMS_E820_TABLE + 16, 4), 1);
	CHECK_EQ_U64(get(bp, BZ_PARAMS_E820_TABLE + (bp[BZ_PARAMS_E820_ENTRIES] - 1u) * 20, 8),
		     CSAN_KERNEL_MIN);
	/* The kernel at 1 MiB, the page tables identity-map 4 GiB in 2 MiB pages. */
	CHECK(memcmp(vm->ram + BOOT_BZ_LOAD_GPA, bz.data + bz.info.kernel_offset, KERNEL_BYTES) ==
	      0);
	CHECK_EQ_U64(get(vm->ram, BOOT_PML4_GPA, 8) & ~0xfffull, BOOT_PDPT_GPA);
	CHECK_EQ_U64(get(vm->ram, BOOT_PD_GPA + 3 * 4096 + 511 * 8, 8) & ~0xfffull,
		     (4ull << 30) - (2ull << 20));

	/* Too little RAM: named, with the --memory to give. */
	ram_vm_free(vm);
	vm = ram_vm(8u << 20);
	why[0] = '\0';
	CHECK(boot_bzimage(vm, &bz, "", NULL, why, sizeof(why)) == -EFBIG);
	CHECK_CONTAINS(why, "--memory=");
	/* A command line longer than the kernel takes. */
	ram_vm_free(vm);
	vm = ram_vm(64u << 20);
	{
		char *longline = malloc(3000);

		memset(longline, 'a', 2999);
		longline[2999] = '\0';
		CHECK(boot_bzimage(vm, &bz, longline, NULL, why, sizeof(why)) == -E2BIG);
		CHECK_CONTAINS(why, "at most 2047");
		free(longline);
	}
	ram_vm_free(vm);
	free(bz.data);
}

static void write_file(const char *path, const void *d, size_t n)
{
	FILE *f = fopen(path, "w");

	if (!f || fwrite(d, 1, n, f) != n || fclose(f))
		abort();
}

/* A build tree holding arch/x86/boot/bzImage and vmlinux (the bundled guest stands in for it). */
static void test_find_vmlinux(void)
{
	char dir[] = "/tmp/test-bzimage.XXXXXX", p[512], q[512], why[1024] = "";
	struct kernel_symbols_note note;
	struct elf_guest g;
	uint8_t *elf, *bz;
	size_t n, en;
	FILE *f;

	if (!mkdtemp(dir))
		abort();
	bz = make_bzimage(&n);
	f = fopen(GUEST_ELF, "r");
	if (!f)
		abort();
	elf = malloc(16u << 20);
	en = fread(elf, 1, 16u << 20, f);
	fclose(f);
	snprintf(p, sizeof(p), "%s/arch", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/arch/x86", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/arch/x86/boot", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/arch/x86/boot/bzImage", dir);
	write_file(p, bz, n);
	snprintf(q, sizeof(q), "%s/vmlinux", dir);
	write_file(q, elf, en);

	/* Found at the top of the tree, and said. */
	CHECK(kernel_image_open(p, NULL, &g, &note, why, sizeof(why)) == 0);
	CHECK(g.bz != NULL);
	CHECK(strcmp(g.path, p) == 0);
	CHECK(g.sym_path && strstr(g.sym_path, "/vmlinux"));
	CHECK_CONTAINS(note.found, "/vmlinux");
	CHECK(!note.missing[0]);
	CHECK(g.nsegs > 0);
	elf_guest_close(&g);

	/* --vmlinux=none: no symbols, nothing said. */
	CHECK(kernel_image_open(p, KERNEL_VMLINUX_NONE, &g, &note, why, sizeof(why)) == 0);
	CHECK(g.bz && !g.sym_path && !note.found[0] && !note.missing[0]);
	elf_guest_close(&g);

	/* None there: it still opens, and the note says how to fix it. */
	unlink(q);
	CHECK(kernel_image_open(p, NULL, &g, &note, why, sizeof(why)) == 0);
	CHECK(g.bz && !g.sym_path);
	CHECK_CONTAINS(note.missing, "--vmlinux=PATH");
	CHECK_CONTAINS(note.missing, "unsymbolized");
	elf_guest_close(&g);

	/* --vmlinux naming something that is no ELF. */
	CHECK(kernel_image_open(p, p, &g, &note, why, sizeof(why)) == -ENOEXEC);
	CHECK_CONTAINS(why, "--vmlinux");
	/* --vmlinux with an ELF kernel, which has its own. */
	CHECK(kernel_image_open(GUEST_ELF, GUEST_ELF, &g, &note, why, sizeof(why)) == -EINVAL);
	CHECK_CONTAINS(why, "--vmlinux");
	/* The bundled guest opens as before, its own symbols. */
	CHECK(kernel_image_open(GUEST_ELF, NULL, &g, &note, why, sizeof(why)) == 0);
	CHECK(!g.bz && g.sym_path && strcmp(g.sym_path, GUEST_ELF) == 0);
	elf_guest_close(&g);

	unlink(p);
	snprintf(p, sizeof(p), "rm -rf '%s'", dir);
	if (system(p) != 0)
		abort();
	free(elf);
	free(bz);
}

int main(void)
{
	test_parse();
	test_boot_params();
	test_find_vmlinux();
	return check_exit_status("test-bzimage");
}
