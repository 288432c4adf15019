/* fuzz-virtio.c: virtio-mmio registers and virtio-blk queues on guest-controlled RAM. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "vmm/dev/virtio_blk.h"
#include "vmm/dev/virtio_mmio.h"

/*
 * Small guest RAM, so that many of the fuzzer's addresses land inside it
 * and the checks at its end are crossed often; a small image likewise.
 */
#define RAM_SIZE      16384u
#define IMAGE_SECTORS 16u
#define MAX_OPS	      48u

/* The queue the prelude sets up: addresses the RAM bytes of the input can fill. */
#define PRE_NUM	  8u
#define PRE_DESC  0x0u
#define PRE_AVAIL 0x80u
#define PRE_USED  0x100u

static uint8_t *ram;
static int image_fd = -1;
static unsigned irqs;

static void count_irq(struct virtio_mmio *t)
{
	(void)t;
	irqs++;
}

static void die(const char *what)
{
	perror(what);
	abort();
}

static void setup_once(void)
{
	static uint8_t zero[IMAGE_SECTORS * VIRTIO_BLK_SECTOR];

	ram = aligned_alloc(4096, RAM_SIZE);
	image_fd = memfd_create("fuzz-virtio-image", MFD_CLOEXEC);
	if (!ram || image_fd < 0)
		die("fuzz-virtio setup");
	if (pwrite(image_fd, zero, sizeof(zero), 0) != (ssize_t)sizeof(zero))
		die("fuzz-virtio image");
	/* The VMM's messages about broken queues: buffered, libFuzzer drops them. */
	setvbuf(stderr, NULL, _IOFBF, 1 << 16);
}

static void w32(struct virtio_mmio *t, unsigned off, uint32_t v)
{
	virtio_mmio_access(t, off, true, (uint8_t *)&v, 4);
}

/* What a well-behaved driver does before its first request (3.1.1, 4.2.3). */
static void prelude(struct virtio_mmio *t, bool ro)
{
	uint64_t f = 1ull << VIRTIO_F_VERSION_1 | 1ull << VIRTIO_BLK_F_FLUSH |
		     (ro ? 1ull << VIRTIO_BLK_F_RO : 0);

	w32(t, VIRTIO_MMIO_STATUS, VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER);
	w32(t, VIRTIO_MMIO_DRIVER_FEATURES_SEL, 0);
	w32(t, VIRTIO_MMIO_DRIVER_FEATURES, (uint32_t)f);
	w32(t, VIRTIO_MMIO_DRIVER_FEATURES_SEL, 1);
	w32(t, VIRTIO_MMIO_DRIVER_FEATURES, (uint32_t)(f >> 32));
	w32(t, VIRTIO_MMIO_STATUS,
	    VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER | VIRTIO_STATUS_FEATURES_OK);
	w32(t, VIRTIO_MMIO_QUEUE_SEL, 0);
	w32(t, VIRTIO_MMIO_QUEUE_NUM, PRE_NUM);
	w32(t, VIRTIO_MMIO_QUEUE_DESC_LOW, PRE_DESC);
	w32(t, VIRTIO_MMIO_QUEUE_DRIVER_LOW, PRE_AVAIL);
	w32(t, VIRTIO_MMIO_QUEUE_DEVICE_LOW, PRE_USED);
	w32(t, VIRTIO_MMIO_QUEUE_READY, 1);
	w32(t, VIRTIO_MMIO_STATUS,
	    VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER | VIRTIO_STATUS_FEATURES_OK |
		    VIRTIO_STATUS_DRIVER_OK);
}

/*
 * Input: a flags byte (bit 0: the prelude sets the device up and a final
 * notify kicks queue 0; bit 1: the image is read-only), a count of
 * register accesses, the accesses (7 bytes each: le16 offset in the
 * window, a kind byte - bit 7 write, bits 0-1 the width 1, 2, 4 or 8 -
 * and le32 value), then guest RAM's first bytes (the rest is zero).
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned widths[] = { 1, 2, 4, 8 };
	struct virtio_mmio_place p = { .base = VIRTIO_MMIO_BASE, .irq = 5 };
	struct virtq_mem mem;
	struct virtio_blk_disk d = { 0 };
	struct virtio_blk b;
	struct virtio_mmio t;
	unsigned nops, i;
	bool ro;

	if (!ram)
		setup_once();
	if (size < 2)
		return 0;
	ro = data[0] & 2;
	nops = data[1] % (MAX_OPS + 1);
	data += 2;
	size -= 2;
	if (size < nops * 7u)
		return 0;
	memset(ram, 0, RAM_SIZE);
	memcpy(ram, data + nops * 7u, size - nops * 7u < RAM_SIZE ? size - nops * 7u : RAM_SIZE);

	/* The device as virtio_blk_attach makes it, without a VM: the file is ours to keep. */
	d.fd = image_fd;
	d.ro = ro;
	d.sectors = IMAGE_SECTORS;
	memcpy(d.id, "fuzz", 4);
	virtio_blk_init(&b, &d);
	b.ops.destroy = NULL;
	mem.ram = ram;
	mem.size = RAM_SIZE;
	virtio_mmio_init(&t, &p, &b.ops, &b, &mem);
	t.irq = count_irq;

	if (data[-2] & 1)
		prelude(&t, ro);
	for (i = 0; i < nops; i++) {
		const uint8_t *op = data + 7 * i;
		uint8_t buf[8] = { 0 };
		uint16_t off;
		unsigned width = widths[op[2] & 3];

		memcpy(&off, op, 2);
		memcpy(buf, op + 3, 4);
		/* The bus hands over only accesses wholly inside the window. */
		off %= VIRTIO_MMIO_SIZE;
		if (off + width > VIRTIO_MMIO_SIZE)
			off = (uint16_t)(VIRTIO_MMIO_SIZE - width);
		virtio_mmio_access(&t, off, op[2] & 0x80, buf, width);
	}
	if (data[-2] & 1)
		w32(&t, VIRTIO_MMIO_QUEUE_NOTIFY, 0);
	/* What the device may never do, whatever the guest did. */
	if (t.q[0].ready && !virtq_check(&mem, &t.q[0]))
		abort();
	if (b.disk.fd != image_fd)
		abort();
	virtio_mmio_fini(&t);
	return 0;
}
