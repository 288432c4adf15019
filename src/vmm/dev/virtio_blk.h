/* virtio_blk.h: a raw disk image as a virtio block device. */
#ifndef CSAN_VMM_VIRTIO_BLK_H
#define CSAN_VMM_VIRTIO_BLK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/dev/virtio_mmio.h"
#include "vmm/dev/virtq.h"

struct vm;

#define VIRTIO_ID_BLOCK	    2
#define VIRTIO_BLK_SECTOR   512u
#define VIRTIO_BLK_ID_BYTES 20u /* VIRTIO_BLK_T_GET_ID's answer (5.2.6) */

/* Feature bits (5.2.3). */
#define VIRTIO_BLK_F_SEG_MAX 2
#define VIRTIO_BLK_F_RO	     5
#define VIRTIO_BLK_F_FLUSH   9

/* Request types and statuses (5.2.6). */
#define VIRTIO_BLK_T_IN	    0u
#define VIRTIO_BLK_T_OUT    1u
#define VIRTIO_BLK_T_FLUSH  4u
#define VIRTIO_BLK_T_GET_ID 8u
#define VIRTIO_BLK_S_OK	    0u
#define VIRTIO_BLK_S_IOERR  1u
#define VIRTIO_BLK_S_UNSUPP 2u

/* The request header the driver puts first (5.2.6): le32 type, le32 reserved, le64 sector. */
#define VIRTIO_BLK_HDR_BYTES 16u

/* An open image: what --disk=IMAGE[,ro] names. */
struct virtio_blk_disk {
	char *path;		      /* as the user gave it, for messages */
	int fd;			      /* -1: closed */
	bool ro;		      /* opened read-only, offered with VIRTIO_BLK_F_RO */
	uint64_t sectors;	      /* capacity in 512-byte sectors */
	char id[VIRTIO_BLK_ID_BYTES]; /* the serial GET_ID answers: the image's base name */
};

/* Counters, under the transport's lock. */
struct virtio_blk_stats {
	uint64_t reads, writes, flushes, ids;
	uint64_t bytes_read, bytes_written;
	uint64_t errors;      /* requests answered VIRTIO_BLK_S_IOERR */
	uint64_t unsupported; /* requests answered VIRTIO_BLK_S_UNSUPP */
	uint64_t no_status;   /* chains without a status byte: given back with nothing written */
};

/* The device's state behind the transport. */
struct virtio_blk {
	struct virtio_blk_disk disk;
	uint8_t config[24]; /* capacity (le64), size_max (le32), seg_max (le32), geometry... */
	struct virtio_dev_ops ops;
	struct virtio_blk_stats stats;
};

/*
 * virtio_blk_open - open @path as a raw image, read-write unless @ro, for
 * a disk; a regular file or a block device whose size is a whole number
 * of 512-byte sectors.  Returns 0 with @d filled, or a negative errno
 * with one line for the user in @why naming --disk and the file, what is
 * wrong and what to do.  virtio_blk_close releases it.
 */
int virtio_blk_open(const char *path, bool ro, struct virtio_blk_disk *d, char *why, size_t whylen);
void virtio_blk_close(struct virtio_blk_disk *d);

/*
 * virtio_blk_init - @b as the device for open disk @d (moved into @b:
 * @d no longer owns the file).  Fills b->ops and b->config.
 */
void virtio_blk_init(struct virtio_blk *b, struct virtio_blk_disk *d);

/*
 * virtio_blk_attach - a virtio-blk device for open disk @d (moved into
 * the device, closed at the VM's destroy, after its data reached the
 * file: fsync) at @p on @vm's MMIO bus.  Returns 0, or a negative errno
 * with a message in @why; @d is closed either way.
 */
int virtio_blk_attach(struct vm *vm, const struct virtio_mmio_place *p, struct virtio_blk_disk *d,
		      char *why, size_t whylen);

/*
 * virtio_blk_request - serve one request, chain @c (its buffers already
 * checked to lie in guest RAM or marked bad), on @b's image.  Writes the
 * status byte when the chain has one and returns the bytes written into
 * the chain's device-writable buffers, for the used ring.  Pure but for
 * the image's file: the fuzz target calls it through the transport.
 */
uint32_t virtio_blk_request(struct virtio_blk *b, struct virtq_chain *c);

#endif /* CSAN_VMM_VIRTIO_BLK_H */
