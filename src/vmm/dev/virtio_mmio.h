/* virtio_mmio.h: the virtio-mmio transport (virtio 1.x, register layout version 2). */
#ifndef CSAN_VMM_VIRTIO_MMIO_H
#define CSAN_VMM_VIRTIO_MMIO_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/dev/virtq.h"

struct vm;

/*
 * Where virtio-mmio devices sit: slot N at VIRTIO_MMIO_BASE + N *
 * VIRTIO_MMIO_SIZE, above the largest guest RAM (CSAN_RAM_LIMIT, 3 GiB)
 * and far below the I/O APIC (0xfec00000) and the LAPIC (0xfee00000), on
 * an ISA IRQ no PC device of the Linux profile uses (COM1 is 4, the RTC
 * 8, ACPI's SCI 9).  One slot per device; a second disk is slot 1.
 */
#define VIRTIO_MMIO_BASE  0xd0000000ull
#define VIRTIO_MMIO_SIZE  0x200ull /* registers 0x000-0x0ff, config space from 0x100 */
#define VIRTIO_MMIO_SLOTS 3

/* A device's place: its register window and its interrupt line (a GSI). */
struct virtio_mmio_place {
	uint64_t base;
	unsigned irq;
};

/*
 * virtio_mmio_slot - the place of slot @n (0 <= n < VIRTIO_MMIO_SLOTS).
 * Returns 0, or -EINVAL for a slot that does not exist.
 */
int virtio_mmio_slot(unsigned n, struct virtio_mmio_place *out);

/*
 * virtio_mmio_announce - the kernel command-line words that tell Linux
 * (CONFIG_VIRTIO_MMIO_CMDLINE_DEVICES) about the device at @p, e.g.
 * "virtio_mmio.device=512@0xd0000000:5", into @buf (@len bytes).
 * Returns 0, or -ENOSPC when they do not fit.
 */
int virtio_mmio_announce(const struct virtio_mmio_place *p, char *buf, size_t len);

/* Device status bits (virtio 1.1, 2.1). */
#define VIRTIO_STATUS_ACKNOWLEDGE 1u
#define VIRTIO_STATUS_DRIVER	  2u
#define VIRTIO_STATUS_DRIVER_OK	  4u
#define VIRTIO_STATUS_FEATURES_OK 8u
#define VIRTIO_STATUS_NEEDS_RESET 64u
#define VIRTIO_STATUS_FAILED	  128u

/* InterruptStatus bits (4.2.2). */
#define VIRTIO_MMIO_INT_VRING  1u
#define VIRTIO_MMIO_INT_CONFIG 2u

/* Feature bits every device here has. */
#define VIRTIO_F_VERSION_1 32

/* The registers (4.2.2), offsets in the window. */
enum virtio_mmio_reg {
	VIRTIO_MMIO_MAGIC_VALUE = 0x000,
	VIRTIO_MMIO_VERSION = 0x004,
	VIRTIO_MMIO_DEVICE_ID = 0x008,
	VIRTIO_MMIO_VENDOR_ID = 0x00c,
	VIRTIO_MMIO_DEVICE_FEATURES = 0x010,
	VIRTIO_MMIO_DEVICE_FEATURES_SEL = 0x014,
	VIRTIO_MMIO_DRIVER_FEATURES = 0x020,
	VIRTIO_MMIO_DRIVER_FEATURES_SEL = 0x024,
	VIRTIO_MMIO_QUEUE_SEL = 0x030,
	VIRTIO_MMIO_QUEUE_NUM_MAX = 0x034,
	VIRTIO_MMIO_QUEUE_NUM = 0x038,
	VIRTIO_MMIO_QUEUE_READY = 0x044,
	VIRTIO_MMIO_QUEUE_NOTIFY = 0x050,
	VIRTIO_MMIO_INTERRUPT_STATUS = 0x060,
	VIRTIO_MMIO_INTERRUPT_ACK = 0x064,
	VIRTIO_MMIO_STATUS = 0x070,
	VIRTIO_MMIO_QUEUE_DESC_LOW = 0x080,
	VIRTIO_MMIO_QUEUE_DESC_HIGH = 0x084,
	VIRTIO_MMIO_QUEUE_DRIVER_LOW = 0x090,
	VIRTIO_MMIO_QUEUE_DRIVER_HIGH = 0x094,
	VIRTIO_MMIO_QUEUE_DEVICE_LOW = 0x0a0,
	VIRTIO_MMIO_QUEUE_DEVICE_HIGH = 0x0a4,
	VIRTIO_MMIO_SHM_SEL = 0x0ac,
	VIRTIO_MMIO_SHM_LEN_LOW = 0x0b0,
	VIRTIO_MMIO_SHM_LEN_HIGH = 0x0b4,
	VIRTIO_MMIO_SHM_BASE_LOW = 0x0b8,
	VIRTIO_MMIO_SHM_BASE_HIGH = 0x0bc,
	VIRTIO_MMIO_CONFIG_GENERATION = 0x0fc,
	VIRTIO_MMIO_CONFIG = 0x100,
};

#define VIRTIO_MMIO_MAGIC     0x74726976u /* "virt" */
#define VIRTIO_MMIO_VERSION_2 2u	  /* the virtio 1.x ("modern") layout */
#define VIRTIO_MMIO_VENDOR    0x4e415343u /* "CSAN", little-endian */

#define VIRTIO_MMIO_QUEUES_MAX 1

struct virtio_mmio;

/* What a device behind the transport provides. */
struct virtio_dev_ops {
	const char *name;      /* "virtio-blk": for messages and the MMIO bus */
	uint32_t device_id;    /* 2: block (5.2) */
	uint64_t features;     /* offered, VIRTIO_F_VERSION_1 included */
	unsigned nqueues;      /* at most VIRTIO_MMIO_QUEUES_MAX */
	const uint8_t *config; /* the device configuration space, read-only here */
	size_t config_len;
	/*
	 * The driver notified queue @q (ready, DRIVER_OK): take its requests.
	 * Called with the transport's lock held, on the notifying vCPU's
	 * thread.  Uses virtio_mmio_queue_mem, virtio_mmio_used and
	 * virtio_mmio_broken.
	 */
	void (*notify)(struct virtio_mmio *t, void *ctx, struct virtq *q);
	/* Release the device's state; the transport is being destroyed. */
	void (*destroy)(void *ctx);
};

/* Counters, under the lock: what the guest did that the device refused. */
struct virtio_mmio_stats {
	uint64_t notifies;	 /* notifications acted on */
	uint64_t early_notifies; /* before DRIVER_OK, on a queue not ready, or after a break */
	uint64_t bad_accesses;	 /* misaligned, wrong size, read-only register written */
	uint64_t broken;	 /* times the device went to NEEDS_RESET */
};

struct virtio_mmio {
	pthread_mutex_t lock; /* registers, queues, and the device's requests */
	struct vm *vm;
	struct virtio_mmio_place place;
	const struct virtio_dev_ops *ops;
	void *ctx;
	struct virtq_mem mem;
	/* Raise the interrupt line: KVM_IRQ_LINE by default; tests count instead. */
	void (*irq)(struct virtio_mmio *t);
	/* Driver-visible state, reset by writing 0 to Status. */
	uint32_t status;
	uint32_t isr;
	uint32_t dev_features_sel, drv_features_sel, queue_sel;
	uint64_t drv_features;
	struct virtq q[VIRTIO_MMIO_QUEUES_MAX];
	struct virtio_mmio_stats stats;
	bool said_broken; /* the first break was told to the user */
};

/*
 * virtio_mmio_attach - put a device with @ops (state @ctx) at @p on @vm's
 * MMIO bus; the transport owns @ctx from then on (ops->destroy at the
 * VM's destroy, also when this fails).  Returns 0 with the transport in
 * *@out (may be NULL), or a negative errno with a message in @why.
 */
int virtio_mmio_attach(struct vm *vm, const struct virtio_mmio_place *p,
		       const struct virtio_dev_ops *ops, void *ctx, struct virtio_mmio **out,
		       char *why, size_t whylen);

/*
 * virtio_mmio_init - the transport's state for guest RAM @mem without a
 * VM or bus (the fuzz target and unit tests); virtio_mmio_fini undoes it.
 */
void virtio_mmio_init(struct virtio_mmio *t, const struct virtio_mmio_place *p,
		      const struct virtio_dev_ops *ops, void *ctx, const struct virtq_mem *mem);
void virtio_mmio_fini(struct virtio_mmio *t);

/*
 * virtio_mmio_access - one guest access of @len bytes (1-8) at @off in the
 * window, as the MMIO bus hands it over (@data read from on writes, filled
 * on reads).  Never fails: what the guest gets wrong is ignored or reads 0.
 */
void virtio_mmio_access(struct virtio_mmio *t, uint64_t off, bool is_write, uint8_t *data,
			unsigned len);

/* For ops->notify, under the lock: */

/* virtio_mmio_queue_mem - guest RAM, for virtq_pop and virtq_push. */
static inline const struct virtq_mem *virtio_mmio_queue_mem(const struct virtio_mmio *t)
{
	return &t->mem;
}

/* virtio_mmio_used - used buffers were pushed on @q: interrupt the driver if it wants. */
void virtio_mmio_used(struct virtio_mmio *t, struct virtq *q);

/*
 * virtio_mmio_broken - the driver broke a queue (@what says how): the
 * device stops and sets NEEDS_RESET until the driver resets it (2.1.2).
 */
void virtio_mmio_broken(struct virtio_mmio *t, const char *what);

#endif /* CSAN_VMM_VIRTIO_MMIO_H */
