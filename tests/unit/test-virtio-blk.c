/* test-virtio-blk.c: the virtio-blk device through the MMIO dispatcher, on fake RAM. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/kvm.h>

#include "vmm/dev/virtio_blk.h"
#include "vmm/dev/virtio_mmio.h"
#include "vmm/kvm/exit.h"
#include "vmm/kvm/vm.h"
#include "check.h"

#define RAM_SIZE      (1u << 20)
#define IMAGE_SECTORS 128u
#define QNUM	      8u
#define DESC	      0x1000u
#define AVAIL	      0x2000u
#define USED	      0x3000u
#define HDR	      0x10000u
#define DATA	      0x11000u
#define STATUS	      0x12000u

static void die(const char *what)
{
	fprintf(stderr, "test-virtio-blk: %s\n", what);
	abort();
}

/* A VM without KVM, one vCPU, guest RAM of our own (as test-exit.c builds one). */
struct fake {
	struct vm *vm;
	struct vcpu *v;
	uint8_t *ram;
};

static void fake_new(struct fake *f)
{
	struct vm_config cfg = { .ncpus = 1 };

	f->vm = vm_new(&cfg);
	f->v = calloc(1, sizeof(*f->v));
	f->ram = aligned_alloc(4096, RAM_SIZE);
	if (!f->vm || !f->v || !f->ram)
		die("out of memory");
	memset(f->ram, 0, RAM_SIZE);
	f->vm->ram = f->ram;
	f->vm->ram_size = RAM_SIZE;
	f->vm->vcpus = calloc(1, sizeof(*f->vm->vcpus));
	f->v->run = aligned_alloc(4096, 8192);
	if (!f->vm->vcpus || !f->v->run)
		die("out of memory");
	f->vm->vcpus[0] = f->v;
	f->v->vm = f->vm;
	f->v->fd = -1;
}

static void fake_free(struct fake *f)
{
	free(f->v->run);
	free(f->v);
	free(f->vm->vcpus);
	f->vm->vcpus = NULL;
	f->vm->ram = NULL;
	vm_destroy(f->vm); /* the device's destroy hook closes its image */
	free(f->ram);
}

/* One MMIO access through vcpu_handle_exit, as KVM_EXIT_MMIO brings it. */
static uint64_t mmio(struct fake *f, uint64_t addr, bool is_write, uint64_t val, unsigned len)
{
	struct kvm_run *run = f->v->run;
	uint64_t out = 0;

	memset(run, 0, sizeof(*run));
	run->exit_reason = KVM_EXIT_MMIO;
	run->mmio.phys_addr = addr;
	run->mmio.len = len;
	run->mmio.is_write = is_write;
	memcpy(run->mmio.data, &val, len);
	CHECK(vcpu_handle_exit(f->v) == VCPU_RESUME);
	memcpy(&out, run->mmio.data, len);
	return is_write ? 0 : out;
}

static uint64_t base;

static uint32_t rd(struct fake *f, unsigned reg)
{
	return (uint32_t)mmio(f, base + reg, false, 0, 4);
}

static void wr(struct fake *f, unsigned reg, uint32_t v)
{
	mmio(f, base + reg, true, v, 4);
}

/* Negotiate @features and set up queue 0; true when FEATURES_OK stuck. */
static bool bring_up(struct fake *f, uint64_t features, bool driver_ok)
{
	wr(f, VIRTIO_MMIO_STATUS, 0);
	wr(f, VIRTIO_MMIO_STATUS, VIRTIO_STATUS_ACKNOWLEDGE);
	wr(f, VIRTIO_MMIO_STATUS, VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER);
	wr(f, VIRTIO_MMIO_DRIVER_FEATURES_SEL, 0);
	wr(f, VIRTIO_MMIO_DRIVER_FEATURES, (uint32_t)features);
	wr(f, VIRTIO_MMIO_DRIVER_FEATURES_SEL, 1);
	wr(f, VIRTIO_MMIO_DRIVER_FEATURES, (uint32_t)(features >> 32));
	wr(f, VIRTIO_MMIO_STATUS,
	   VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER | VIRTIO_STATUS_FEATURES_OK);
	if (!(rd(f, VIRTIO_MMIO_STATUS) & VIRTIO_STATUS_FEATURES_OK))
		return false;
	wr(f, VIRTIO_MMIO_QUEUE_SEL, 0);
	wr(f, VIRTIO_MMIO_QUEUE_NUM, QNUM);
	wr(f, VIRTIO_MMIO_QUEUE_DESC_LOW, DESC);
	wr(f, VIRTIO_MMIO_QUEUE_DESC_HIGH, 0);
	wr(f, VIRTIO_MMIO_QUEUE_DRIVER_LOW, AVAIL);
	wr(f, VIRTIO_MMIO_QUEUE_DRIVER_HIGH, 0);
	wr(f, VIRTIO_MMIO_QUEUE_DEVICE_LOW, USED);
	wr(f, VIRTIO_MMIO_QUEUE_DEVICE_HIGH, 0);
	wr(f, VIRTIO_MMIO_QUEUE_READY, 1);
	memset(f->ram + DESC, 0, 0x3000);
	if (driver_ok)
		wr(f, VIRTIO_MMIO_STATUS,
		   VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER | VIRTIO_STATUS_FEATURES_OK |
			   VIRTIO_STATUS_DRIVER_OK);
	return true;
}

static void set_desc(struct fake *f, unsigned i, uint64_t addr, uint32_t len, uint16_t flags,
		     uint16_t next)
{
	uint8_t *d = f->ram + DESC + 16 * i;

	memcpy(d, &addr, 8);
	memcpy(d + 8, &len, 4);
	memcpy(d + 12, &flags, 2);
	memcpy(d + 14, &next, 2);
}

static uint16_t avail_idx(struct fake *f)
{
	uint16_t v;

	memcpy(&v, f->ram + AVAIL + 2, 2);
	return v;
}

/* Make chain @head available and notify queue 0. */
static void submit(struct fake *f, uint16_t head)
{
	uint16_t idx = avail_idx(f);

	memcpy(f->ram + AVAIL + 4 + 2 * (idx % QNUM), &head, 2);
	idx++;
	memcpy(f->ram + AVAIL + 2, &idx, 2);
	wr(f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
}

static uint16_t used_idx(struct fake *f)
{
	uint16_t v;

	memcpy(&v, f->ram + USED + 2, 2);
	return v;
}

static uint32_t used_len(struct fake *f, uint16_t n)
{
	uint32_t v;

	memcpy(&v, f->ram + USED + 4 + 8 * (n % QNUM) + 4, 4);
	return v;
}

/* A three-part request: header, data (@len at DATA), status byte. */
static void request(struct fake *f, uint32_t type, uint64_t sector, uint32_t len, bool data_in)
{
	memcpy(f->ram + HDR, &type, 4);
	memset(f->ram + HDR + 4, 0, 4);
	memcpy(f->ram + HDR + 8, &sector, 8);
	f->ram[STATUS] = 0xee;
	set_desc(f, 0, HDR, 16, VIRTQ_DESC_F_NEXT, 1);
	set_desc(f, 1, DATA, len, VIRTQ_DESC_F_NEXT | (data_in ? VIRTQ_DESC_F_WRITE : 0), 2);
	set_desc(f, 2, STATUS, 1, VIRTQ_DESC_F_WRITE, 0);
	submit(f, 0);
}

static int make_image(char *path)
{
	uint8_t buf[IMAGE_SECTORS * 512];
	unsigned i;
	int fd = mkstemp(path);

	if (fd < 0)
		die("mkstemp failed");
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 7 + i / 512);
	if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
		die("cannot write the image");
	return fd;
}

static void test_rw(const char *path, int fd)
{
	struct virtio_mmio_place p;
	struct virtio_blk_disk d;
	struct fake f;
	uint8_t want[1024], got[512];
	char why[256];
	uint16_t u;

	fake_new(&f);
	CHECK(virtio_mmio_slot(0, &p) == 0);
	base = p.base;
	CHECK(virtio_blk_open(path, false, &d, why, sizeof(why)) == 0);
	CHECK_EQ_U64(d.sectors, IMAGE_SECTORS);
	CHECK(virtio_blk_attach(f.vm, &p, &d, why, sizeof(why)) == 0);

	CHECK_EQ_U64(rd(&f, VIRTIO_MMIO_MAGIC_VALUE), VIRTIO_MMIO_MAGIC);
	CHECK_EQ_U64(rd(&f, VIRTIO_MMIO_VERSION), 2);
	CHECK_EQ_U64(rd(&f, VIRTIO_MMIO_DEVICE_ID), VIRTIO_ID_BLOCK);
	/* Read-only registers keep their values. */
	wr(&f, VIRTIO_MMIO_MAGIC_VALUE, 0);
	CHECK_EQ_U64(rd(&f, VIRTIO_MMIO_MAGIC_VALUE), VIRTIO_MMIO_MAGIC);
	wr(&f, VIRTIO_MMIO_DEVICE_FEATURES_SEL, 1);
	CHECK(rd(&f, VIRTIO_MMIO_DEVICE_FEATURES) & 1u << (VIRTIO_F_VERSION_1 - 32));
	wr(&f, VIRTIO_MMIO_DEVICE_FEATURES_SEL, 0);
	CHECK(!(rd(&f, VIRTIO_MMIO_DEVICE_FEATURES) & 1u << VIRTIO_BLK_F_RO));
	/* The capacity, in config space, in one 8-byte read and in bytes. */
	CHECK_EQ_U64(mmio(&f, base + VIRTIO_MMIO_CONFIG, false, 0, 8), IMAGE_SECTORS);
	CHECK_EQ_U64(mmio(&f, base + VIRTIO_MMIO_CONFIG, false, 0, 1), IMAGE_SECTORS);

	/* Feature negotiation: a legacy driver (no VERSION_1) or an unknown feature is refused. */
	CHECK(!bring_up(&f, 1ull << VIRTIO_BLK_F_FLUSH, true));
	CHECK(!bring_up(&f, 1ull << VIRTIO_F_VERSION_1 | 1ull << 40, true));
	CHECK(bring_up(&f, 1ull << VIRTIO_F_VERSION_1 | 1ull << VIRTIO_BLK_F_FLUSH, false));

	/* A notify before DRIVER_OK is ignored. */
	request(&f, VIRTIO_BLK_T_IN, 2, 1024, true);
	CHECK_EQ_U64(used_idx(&f), 0);
	CHECK(bring_up(&f, 1ull << VIRTIO_F_VERSION_1, true));
	CHECK_EQ_U64(rd(&f, VIRTIO_MMIO_QUEUE_NUM_MAX), VIRTQ_NUM_MAX);
	CHECK_EQ_U64(rd(&f, VIRTIO_MMIO_QUEUE_READY), 1);

	/* Read two sectors from sector 2. */
	request(&f, VIRTIO_BLK_T_IN, 2, 1024, true);
	u = used_idx(&f);
	CHECK_EQ_U64(u, 1);
	CHECK_EQ_U64(used_len(&f, 0), 1025);
	CHECK_EQ_U64(f.ram[STATUS], VIRTIO_BLK_S_OK);
	CHECK(pread(fd, want, sizeof(want), 1024) == (ssize_t)sizeof(want));
	CHECK(memcmp(f.ram + DATA, want, sizeof(want)) == 0);
	CHECK(rd(&f, VIRTIO_MMIO_INTERRUPT_STATUS) & VIRTIO_MMIO_INT_VRING);
	wr(&f, VIRTIO_MMIO_INTERRUPT_ACK, VIRTIO_MMIO_INT_VRING);
	CHECK_EQ_U64(rd(&f, VIRTIO_MMIO_INTERRUPT_STATUS), 0);

	/* Write one sector at sector 5: it lands in the image. */
	memset(f.ram + DATA, 0xa5, 512);
	request(&f, VIRTIO_BLK_T_OUT, 5, 512, false);
	CHECK_EQ_U64(used_idx(&f), 2);
	CHECK_EQ_U64(used_len(&f, 1), 1);
	CHECK_EQ_U64(f.ram[STATUS], VIRTIO_BLK_S_OK);
	CHECK(pread(fd, got, sizeof(got), 5 * 512) == (ssize_t)sizeof(got));
	memset(want, 0xa5, 512);
	CHECK(memcmp(got, want, 512) == 0);

	/* Past the end, a partial sector, a buffer outside RAM: IOERR, nothing moved. */
	request(&f, VIRTIO_BLK_T_IN, IMAGE_SECTORS - 1, 1024, true);
	CHECK_EQ_U64(f.ram[STATUS], VIRTIO_BLK_S_IOERR);
	request(&f, VIRTIO_BLK_T_IN, UINT64_MAX, 512, true);
	CHECK_EQ_U64(f.ram[STATUS], VIRTIO_BLK_S_IOERR);
	request(&f, VIRTIO_BLK_T_OUT, 0, 100, false);
	CHECK_EQ_U64(f.ram[STATUS], VIRTIO_BLK_S_IOERR);
	set_desc(&f, 1, RAM_SIZE - 256, 512, VIRTQ_DESC_F_NEXT | VIRTQ_DESC_F_WRITE, 2);
	f.ram[STATUS] = 0xee;
	submit(&f, 0);
	CHECK_EQ_U64(f.ram[STATUS], VIRTIO_BLK_S_IOERR);
	set_desc(&f, 1, UINT64_MAX - 100, 512, VIRTQ_DESC_F_NEXT | VIRTQ_DESC_F_WRITE, 2);
	f.ram[STATUS] = 0xee;
	submit(&f, 0);
	CHECK_EQ_U64(f.ram[STATUS], VIRTIO_BLK_S_IOERR);
	/* A header too short for its 16 bytes. */
	set_desc(&f, 0, HDR, 8, VIRTQ_DESC_F_NEXT, 1);
	set_desc(&f, 1, DATA, 512, VIRTQ_DESC_F_NEXT | VIRTQ_DESC_F_WRITE, 2);
	f.ram[STATUS] = 0xee;
	submit(&f, 0);
	CHECK_EQ_U64(f.ram[STATUS], VIRTIO_BLK_S_IOERR);
	/* An unknown type: UNSUPP. */
	request(&f, 77, 0, 512, true);
	CHECK_EQ_U64(f.ram[STATUS], VIRTIO_BLK_S_UNSUPP);
	/* GET_ID: the image's base name, up to 20 bytes. */
	request(&f, VIRTIO_BLK_T_GET_ID, 0, 20, true);
	CHECK_EQ_U64(f.ram[STATUS], VIRTIO_BLK_S_OK);
	CHECK(memcmp(f.ram + DATA, strrchr(path, '/') + 1, 20) == 0);
	CHECK_EQ_U64(used_idx(&f), 10);
	CHECK(!(rd(&f, VIRTIO_MMIO_STATUS) & VIRTIO_STATUS_NEEDS_RESET));

	/* Queue set-up writes while the queue is ready change nothing: reads still work. */
	wr(&f, VIRTIO_MMIO_QUEUE_DESC_LOW, 0xfff000);
	wr(&f, VIRTIO_MMIO_QUEUE_NUM, 100000);
	request(&f, VIRTIO_BLK_T_IN, 0, 512, true);
	CHECK_EQ_U64(f.ram[STATUS], VIRTIO_BLK_S_OK);

	/* A chain that loops breaks the queue: NEEDS_RESET, config interrupt, no more work. */
	set_desc(&f, 0, HDR, 16, VIRTQ_DESC_F_NEXT, 1);
	set_desc(&f, 1, DATA, 512, VIRTQ_DESC_F_NEXT | VIRTQ_DESC_F_WRITE, 0);
	u = used_idx(&f);
	submit(&f, 0);
	CHECK_EQ_U64(used_idx(&f), u);
	CHECK(rd(&f, VIRTIO_MMIO_STATUS) & VIRTIO_STATUS_NEEDS_RESET);
	CHECK(rd(&f, VIRTIO_MMIO_INTERRUPT_STATUS) & VIRTIO_MMIO_INT_CONFIG);
	request(&f, VIRTIO_BLK_T_IN, 0, 512, true);
	CHECK_EQ_U64(used_idx(&f), u);
	/* A reset brings it back. */
	CHECK(bring_up(&f, 1ull << VIRTIO_F_VERSION_1, true));
	CHECK(!(rd(&f, VIRTIO_MMIO_STATUS) & VIRTIO_STATUS_NEEDS_RESET));
	request(&f, VIRTIO_BLK_T_IN, 0, 512, true);
	CHECK_EQ_U64(used_idx(&f), 1);
	CHECK_EQ_U64(f.ram[STATUS], VIRTIO_BLK_S_OK);
	/* A head index out of range, and more entries than the ring holds: broken. */
	submit(&f, QNUM);
	CHECK(rd(&f, VIRTIO_MMIO_STATUS) & VIRTIO_STATUS_NEEDS_RESET);
	CHECK(bring_up(&f, 1ull << VIRTIO_F_VERSION_1, true));
	memcpy(f.ram + AVAIL + 2, &(uint16_t){ QNUM + 1 }, 2);
	wr(&f, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	CHECK(rd(&f, VIRTIO_MMIO_STATUS) & VIRTIO_STATUS_NEEDS_RESET);
	/* A driver stops using the queue: 0 reads back, and notifies do nothing. */
	CHECK(bring_up(&f, 1ull << VIRTIO_F_VERSION_1, true));
	wr(&f, VIRTIO_MMIO_QUEUE_READY, 0);
	CHECK_EQ_U64(rd(&f, VIRTIO_MMIO_QUEUE_READY), 0);
	request(&f, VIRTIO_BLK_T_IN, 0, 512, true);
	CHECK_EQ_U64(used_idx(&f), 0);
	/* A queue whose rings are not in RAM cannot be made ready. */
	wr(&f, VIRTIO_MMIO_STATUS, 0);
	wr(&f, VIRTIO_MMIO_QUEUE_NUM, QNUM);
	wr(&f, VIRTIO_MMIO_QUEUE_DESC_LOW, RAM_SIZE - 16);
	wr(&f, VIRTIO_MMIO_QUEUE_READY, 1);
	CHECK_EQ_U64(rd(&f, VIRTIO_MMIO_QUEUE_READY), 0);
	CHECK(rd(&f, VIRTIO_MMIO_STATUS) & VIRTIO_STATUS_NEEDS_RESET);
	fake_free(&f);
}

static void test_ro(const char *path, int fd)
{
	struct virtio_mmio_place p;
	struct virtio_blk_disk d;
	struct fake f;
	uint8_t before[512], after[512];
	char why[256];

	fake_new(&f);
	CHECK(virtio_mmio_slot(1, &p) == 0);
	base = p.base;
	/*
	 * A ,ro disk's file is opened read-only, so a write would fail in
	 * pwrite anyway; open this one writable to see the device refuse.
	 */
	CHECK(virtio_blk_open(path, false, &d, why, sizeof(why)) == 0);
	d.ro = true;
	CHECK(virtio_blk_attach(f.vm, &p, &d, why, sizeof(why)) == 0);
	CHECK(rd(&f, VIRTIO_MMIO_DEVICE_FEATURES) & 1u << VIRTIO_BLK_F_RO);
	CHECK(bring_up(&f, 1ull << VIRTIO_F_VERSION_1 | 1ull << VIRTIO_BLK_F_RO, true));
	CHECK(pread(fd, before, sizeof(before), 0) == (ssize_t)sizeof(before));
	memset(f.ram + DATA, 0x5a, 512);
	request(&f, VIRTIO_BLK_T_OUT, 0, 512, false);
	CHECK_EQ_U64(used_idx(&f), 1);
	CHECK_EQ_U64(f.ram[STATUS], VIRTIO_BLK_S_IOERR);
	CHECK(pread(fd, after, sizeof(after), 0) == (ssize_t)sizeof(after));
	CHECK(memcmp(before, after, 512) == 0);
	request(&f, VIRTIO_BLK_T_IN, 0, 512, true);
	CHECK_EQ_U64(f.ram[STATUS], VIRTIO_BLK_S_OK);
	CHECK(memcmp(f.ram + DATA, before, 512) == 0);
	fake_free(&f);
}

static void test_open_refusals(const char *path)
{
	struct virtio_blk_disk d;
	char why[512], odd[] = "/tmp/test-virtio-blk-odd.XXXXXX";
	int fd;

	CHECK(virtio_blk_open("/nonexistent/disk.img", true, &d, why, sizeof(why)) == -ENOENT);
	CHECK_CONTAINS(why, "--disk: cannot open /nonexistent/disk.img");
	CHECK(virtio_blk_open("/tmp", false, &d, why, sizeof(why)) < 0);
	CHECK_CONTAINS(why, "/tmp");
	fd = mkstemp(odd);
	CHECK(fd >= 0 && write(fd, "x", 1) == 1);
	CHECK(virtio_blk_open(odd, false, &d, why, sizeof(why)) == -EINVAL);
	CHECK_CONTAINS(why, "not a whole number of 512-byte sectors");
	close(fd);
	unlink(odd);
	/* Not writable: the message names ,ro (root opens anything, so only as non-root). */
	if (geteuid() != 0) {
		CHECK(chmod(path, 0444) == 0);
		CHECK(virtio_blk_open(path, false, &d, why, sizeof(why)) == -EACCES);
		CHECK_CONTAINS(why, ",ro");
		CHECK(chmod(path, 0600) == 0);
	}
	CHECK(virtio_blk_open(path, true, &d, why, sizeof(why)) == 0);
	virtio_blk_close(&d);
}

int main(void)
{
	char path[] = "/tmp/test-virtio-blk.XXXXXX";
	int fd = make_image(path);

	test_rw(path, fd);
	test_ro(path, fd);
	test_open_refusals(path);
	close(fd);
	unlink(path);
	return check_exit_status("test-virtio-blk");
}
