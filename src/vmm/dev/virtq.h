/* virtq.h: split virtqueues in guest RAM, walked without trusting the guest. */
#ifndef CSAN_VMM_VIRTQ_H
#define CSAN_VMM_VIRTQ_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The split virtqueue of the virtio 1.x specification (section 2.7): a
 * descriptor table, the driver's "available" ring and the device's "used"
 * ring, all in guest RAM where the guest can change them at any moment.
 * These functions are pure over (guest RAM, its size, the queue's state):
 * no VM, no locks, no I/O, so the fuzz target drives them directly.  The
 * caller serializes calls on one queue.
 */

/* Descriptor flags (2.7.5). */
#define VIRTQ_DESC_F_NEXT     1u
#define VIRTQ_DESC_F_WRITE    2u
#define VIRTQ_DESC_F_INDIRECT 4u /* never offered (no VIRTIO_F_INDIRECT_DESC): refused */

/* The driver asks for no interrupt on used buffers (2.7.7). */
#define VIRTQ_AVAIL_F_NO_INTERRUPT 1u

/* Ring sizes this device offers: QueueNumMax. */
#define VIRTQ_NUM_MAX 256u

/* The layouts' alignment (2.7, table "Virtqueue Part Alignment"). */
#define VIRTQ_DESC_ALIGN  16u
#define VIRTQ_AVAIL_ALIGN 2u
#define VIRTQ_USED_ALIGN  4u

/* Guest RAM as the device sees it: guest-physical [0, size) at ram. */
struct virtq_mem {
	uint8_t *ram;
	uint64_t size;
};

/* One queue's state, set by the driver through the transport's registers. */
struct virtq {
	uint16_t num;  /* QueueNum: entries in each part */
	bool ready;    /* QueueReady */
	uint64_t desc; /* guest-physical addresses of the three parts */
	uint64_t avail;
	uint64_t used;
	uint16_t last_avail; /* the next avail ring entry the device takes */
	uint16_t used_idx;   /* the device's copy of used->idx */
};

/* One buffer of a chain: guest RAM at @hva, @len bytes; NULL when outside RAM. */
struct virtq_buf {
	uint8_t *hva;
	uint32_t len;
	bool device_writes; /* VIRTQ_DESC_F_WRITE */
};

/* A descriptor chain taken from the available ring. */
struct virtq_chain {
	uint16_t head;	/* its first descriptor: what virtq_push hands back */
	unsigned n;	/* buffers in bufs */
	bool bad_addr;	/* a buffer lies (partly) outside guest RAM: its hva is NULL */
	bool bad_order; /* a driver-readable buffer after a device-writable one (2.7.4.2) */
	struct virtq_buf bufs[VIRTQ_NUM_MAX];
};

/*
 * virtq_check - whether @q's three parts lie wholly inside @m at their
 * required alignment, with 1 <= num <= VIRTQ_NUM_MAX.  Overflow-safe.
 */
bool virtq_check(const struct virtq_mem *m, const struct virtq *q);

/*
 * virtq_pop - take the next chain the driver made available on @q into
 * @c.  Returns 1 with a chain, 0 when none is waiting, -EINVAL when the
 * queue is broken: its parts are not inside RAM (virtq_check), the driver
 * made more than num entries available, a descriptor index is out of
 * range, a chain is longer than the ring (a loop), or a descriptor is
 * indirect.  A broken queue cannot be trusted again until the driver
 * resets the device (VIRTIO_CONFIG_S_NEEDS_RESET).  Buffers outside RAM
 * are not an error here: the chain comes back with bad_addr set, so the
 * request can be answered with an error status.
 */
int virtq_pop(const struct virtq_mem *m, struct virtq *q, struct virtq_chain *c);

/*
 * virtq_push - give chain @head back on the used ring with @written
 * bytes written into its device-writable buffers, then publish the new
 * used index (release ordering: the entry is visible before the index).
 * Returns 0, or -EINVAL when the queue is broken (virtq_check).
 */
int virtq_push(const struct virtq_mem *m, struct virtq *q, uint16_t head, uint32_t written);

/*
 * virtq_wants_interrupt - after virtq_push: whether the driver wants an
 * interrupt for the used buffers (it did not set VIRTQ_AVAIL_F_NO_INTERRUPT).
 * A full fence first, so the flag read is not older than the index just
 * published.  False for a broken queue.
 */
bool virtq_wants_interrupt(const struct virtq_mem *m, const struct virtq *q);

#endif /* CSAN_VMM_VIRTQ_H */
