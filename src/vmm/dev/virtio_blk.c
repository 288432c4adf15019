/* virtio_blk.c: a raw disk image as a virtio block device. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vmm/base/log.h"
#include "vmm/dev/virtio_blk.h"

int virtio_blk_open(const char *path, bool ro, struct virtio_blk_disk *d, char *why, size_t whylen)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	struct stat st;
	off_t size;
	int e;

	memset(d, 0, sizeof(*d));
	d->fd = open(path, (ro ? O_RDONLY : O_RDWR) | O_CLOEXEC);
	if (d->fd < 0) {
		e = errno;
		if (!ro && (e == EACCES || e == EROFS || e == EPERM))
			why_set(why, whylen,
				"--disk: cannot open %s for writing: %s; make it writable, or "
				"add ,ro to attach it read-only",
				path, strerror(e));
		else
			why_set(why, whylen, "--disk: cannot open %s: %s; give a raw disk image",
				path, strerror(e));
		return -e;
	}
	if (fstat(d->fd, &st) < 0 || !(S_ISREG(st.st_mode) || S_ISBLK(st.st_mode))) {
		e = errno ? errno : EINVAL;
		why_set(why, whylen,
			"--disk: %s is not a regular file or a block device; give a raw disk "
			"image",
			path);
		goto fail;
	}
	/* lseek, not st_size: a block device's size is only told this way. */
	size = lseek(d->fd, 0, SEEK_END);
	if (size < 0) {
		e = errno;
		why_set(why, whylen, "--disk: cannot tell the size of %s: %s", path, strerror(e));
		goto fail;
	}
	if (size % VIRTIO_BLK_SECTOR) {
		e = EINVAL;
		why_set(why, whylen,
			"--disk: %s is %lld bytes, not a whole number of 512-byte sectors; "
			"pad it (truncate -s %%512 %s)",
			path, (long long)size, path);
		goto fail;
	}
	d->path = strdup(path);
	if (!d->path) {
		e = ENOMEM;
		why_set(why, whylen, "out of memory");
		goto fail;
	}
	d->ro = ro;
	d->sectors = (uint64_t)size / VIRTIO_BLK_SECTOR;
	/* Not NUL-terminated when it fills all 20 bytes: GET_ID's format (5.2.6). */
	memcpy(d->id, base, strlen(base) < sizeof(d->id) ? strlen(base) : sizeof(d->id));
	return 0;
fail:
	close(d->fd);
	d->fd = -1;
	return -e;
}

void virtio_blk_close(struct virtio_blk_disk *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
	free(d->path);
	d->path = NULL;
}

/*
 * A cursor over the chain's buffers of one direction (driver-readable or
 * device-writable), so a request's parts may be framed any way the
 * driver likes (VIRTIO_F_VERSION_1 implies any layout, 2.6.4).
 */
struct cursor {
	struct virtq_chain *c;
	bool device_writes;
	unsigned i;   /* the buffer */
	uint32_t off; /* bytes of it consumed */
};

/* The next piece of at most @max bytes; its length, 0 at the end. */
static uint32_t cursor_next(struct cursor *k, uint64_t max, uint8_t **p)
{
	for (; k->i < k->c->n; k->i++, k->off = 0) {
		struct virtq_buf *b = &k->c->bufs[k->i];
		uint32_t n;

		if (b->device_writes != k->device_writes || k->off == b->len)
			continue;
		n = b->len - k->off;
		if (n > max)
			n = (uint32_t)max;
		*p = b->hva + k->off;
		k->off += n;
		return n;
	}
	return 0;
}

/* Bytes left in the cursor's direction. */
static uint64_t cursor_left(const struct cursor *k)
{
	uint64_t n = 0;
	unsigned i;

	for (i = k->i; i < k->c->n; i++)
		if (k->c->bufs[i].device_writes == k->device_writes)
			n += k->c->bufs[i].len - (i == k->i ? k->off : 0);
	return n;
}

/* Copy @len bytes from the cursor to @dst; false when it holds fewer. */
static bool cursor_read(struct cursor *k, void *dst, uint32_t len)
{
	uint8_t *out = dst, *p;
	uint32_t n;

	while (len && (n = cursor_next(k, len, &p))) {
		memcpy(out, p, n);
		out += n;
		len -= n;
	}
	return len == 0;
}

/* Whole pread/pwrite of one buffer at @off: short transfers retried. */
static bool file_io(int fd, bool write, uint8_t *p, uint32_t len, uint64_t off)
{
	while (len) {
		ssize_t n = write ? pwrite(fd, p, len, (off_t)off) : pread(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false; /* an error, or the image shrank under us */
		p += n;
		len -= (uint32_t)n;
		off += (uint64_t)n;
	}
	return true;
}

/*
 * Read or write the data part of a request at @sector: the remaining
 * bytes of @k, a whole number of sectors inside the image.  Returns a
 * VIRTIO_BLK_S_* status; *@done counts the bytes moved.
 */
static uint8_t data_io(struct virtio_blk *b, struct cursor *k, bool write, uint64_t sector,
		       uint64_t *done)
{
	uint64_t len = cursor_left(k), off;
	uint32_t n;
	uint8_t *p;

	*done = 0;
	if (len % VIRTIO_BLK_SECTOR || sector > b->disk.sectors ||
	    len / VIRTIO_BLK_SECTOR > b->disk.sectors - sector)
		return VIRTIO_BLK_S_IOERR;
	if (write && b->disk.ro)
		return VIRTIO_BLK_S_IOERR; /* VIRTIO_BLK_F_RO: writes fail (5.2.6.2) */
	off = sector * VIRTIO_BLK_SECTOR;
	while ((n = cursor_next(k, UINT32_MAX, &p))) {
		if (!file_io(b->disk.fd, write, p, n, off))
			return VIRTIO_BLK_S_IOERR;
		off += n;
		*done += n;
	}
	return VIRTIO_BLK_S_OK;
}

uint32_t virtio_blk_request(struct virtio_blk *b, struct virtq_chain *c)
{
	struct cursor in = { .c = c, .device_writes = false };
	struct cursor out = { .c = c, .device_writes = true };
	struct virtq_buf *last = c->n ? &c->bufs[c->n - 1] : NULL;
	uint8_t hdr[VIRTIO_BLK_HDR_BYTES], status, *status_p, *p;
	uint64_t sector, done = 0;
	uint32_t type, n;

	/* The status is the last byte of the last buffer, device-writable (5.2.6). */
	if (!last || !last->device_writes || !last->len || !last->hva) {
		b->stats.no_status++;
		return 0;
	}
	status_p = last->hva + last->len - 1;
	last->len--; /* the data part ends before it */
	if (c->bad_addr || c->bad_order || !cursor_read(&in, hdr, sizeof(hdr))) {
		status = VIRTIO_BLK_S_IOERR;
		goto answer;
	}
	memcpy(&type, hdr, sizeof(type));
	memcpy(&sector, hdr + 8, sizeof(sector));
	switch (type) {
	case VIRTIO_BLK_T_IN:
		b->stats.reads++;
		status = data_io(b, &out, false, sector, &done);
		b->stats.bytes_read += done;
		break;
	case VIRTIO_BLK_T_OUT:
		b->stats.writes++;
		status = data_io(b, &in, true, sector, &done);
		b->stats.bytes_written += done;
		done = 0; /* nothing written into the guest's buffers but the status */
		break;
	case VIRTIO_BLK_T_FLUSH:
		b->stats.flushes++;
		status =
			b->disk.ro || !fdatasync(b->disk.fd) ? VIRTIO_BLK_S_OK : VIRTIO_BLK_S_IOERR;
		break;
	case VIRTIO_BLK_T_GET_ID:
		b->stats.ids++;
		status = VIRTIO_BLK_S_OK;
		while (done < sizeof(b->disk.id) &&
		       (n = cursor_next(&out, sizeof(b->disk.id) - done, &p))) {
			memcpy(p, b->disk.id + done, n);
			done += n;
		}
		break;
	default: status = VIRTIO_BLK_S_UNSUPP; break;
	}
answer:
	if (status == VIRTIO_BLK_S_IOERR)
		b->stats.errors++;
	else if (status == VIRTIO_BLK_S_UNSUPP)
		b->stats.unsupported++;
	*status_p = status;
	/* done <= the writable bytes, which are below 2^32 * VIRTQ_NUM_MAX: clamp. */
	return done >= UINT32_MAX ? UINT32_MAX : (uint32_t)done + 1;
}

/* The queue was notified: serve what it holds, then interrupt once. */
static void blk_notify(struct virtio_mmio *t, void *ctx, struct virtq *q)
{
	const struct virtq_mem *m = virtio_mmio_queue_mem(t);
	struct virtio_blk *b = ctx;
	struct virtq_chain c;
	unsigned served;
	bool pushed = false;
	int rc = 0;

	/*
	 * At most one ring's worth per notification: a guest adding entries
	 * as fast as they are served cannot keep this vCPU thread here for
	 * ever, and every entry added later comes with its own notification
	 * (the device never sets VIRTQ_USED_F_NO_NOTIFY).
	 */
	for (served = 0; served < q->num && (rc = virtq_pop(m, q, &c)) == 1; served++) {
		uint32_t written = virtio_blk_request(b, &c);

		if (virtq_push(m, q, c.head, written)) {
			rc = -EINVAL;
			break;
		}
		pushed = true;
	}
	if (pushed)
		virtio_mmio_used(t, q);
	if (rc < 0)
		virtio_mmio_broken(t, "a descriptor chain out of range, looping or indirect");
}

static void blk_destroy(void *ctx)
{
	struct virtio_blk *b = ctx;

	/* What the guest wrote reaches the file (and the emulated host's disk) before we go. */
	if (b->disk.fd >= 0 && !b->disk.ro && fsync(b->disk.fd) < 0)
		log_error_errno(errno, "--disk: writing %s out", b->disk.path);
	virtio_blk_close(&b->disk);
	free(b);
}

void virtio_blk_init(struct virtio_blk *b, struct virtio_blk_disk *d)
{
	uint64_t cap = d->sectors;
	uint32_t seg_max = VIRTQ_NUM_MAX - 2; /* the header and the status take two */

	memset(b, 0, sizeof(*b));
	b->disk = *d;
	d->fd = -1;
	d->path = NULL;
	memcpy(b->config, &cap, sizeof(cap));		   /* capacity, le64 */
	memcpy(b->config + 12, &seg_max, sizeof(seg_max)); /* seg_max, le32 */
	b->ops.name = "virtio-blk";
	b->ops.device_id = VIRTIO_ID_BLOCK;
	b->ops.features = 1ull << VIRTIO_F_VERSION_1 | 1ull << VIRTIO_BLK_F_SEG_MAX |
			  1ull << VIRTIO_BLK_F_FLUSH | (d->ro ? 1ull << VIRTIO_BLK_F_RO : 0);
	b->ops.nqueues = 1;
	b->ops.config = b->config;
	b->ops.config_len = sizeof(b->config);
	b->ops.notify = blk_notify;
	b->ops.destroy = blk_destroy;
}

int virtio_blk_attach(struct vm *vm, const struct virtio_mmio_place *p, struct virtio_blk_disk *d,
		      char *why, size_t whylen)
{
	struct virtio_blk *b = calloc(1, sizeof(*b));

	if (!b) {
		virtio_blk_close(d);
		why_set(why, whylen, "out of memory");
		return -ENOMEM;
	}
	virtio_blk_init(b, d);
	/* From here the transport owns b: blk_destroy runs on every path. */
	return virtio_mmio_attach(vm, p, &b->ops, b, NULL, why, whylen);
}
