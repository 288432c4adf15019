/* virtq.c: split virtqueues in guest RAM, walked without trusting the guest. */
#include <errno.h>
#include <string.h>

#include "vmm/dev/virtq.h"

/* The parts' layouts in guest RAM (virtio 1.1, 2.6.5, 2.6.6, 2.6.8), little-endian. */
struct virtq_desc {
	uint64_t addr;
	uint32_t len;
	uint16_t flags;
	uint16_t next;
};

#define AVAIL_FLAGS   0u /* le16 flags, le16 idx, le16 ring[num], le16 used_event */
#define AVAIL_IDX     2u
#define AVAIL_RING    4u
#define USED_FLAGS    0u /* le16 flags, le16 idx, {le32 id, le32 len} ring[num], le16 avail_event */
#define USED_IDX      2u
#define USED_RING     4u
#define USED_ELEM_LEN 8u

_Static_assert(sizeof(struct virtq_desc) == 16, "a virtq descriptor is 16 bytes");
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "virtio 1.x rings are little-endian, read here as native");

/* Guest-physical [gpa, gpa + len) inside RAM: as vm_gpa_to_hva, without the VM. */
static uint8_t *gpa(const struct virtq_mem *m, uint64_t addr, uint64_t len)
{
	if (addr > m->size || len > m->size - addr)
		return NULL;
	return m->ram + addr;
}

static uint64_t desc_bytes(uint16_t num)
{
	return (uint64_t)num * sizeof(struct virtq_desc);
}

static uint64_t avail_bytes(uint16_t num)
{
	return AVAIL_RING + 2ull * num + 2; /* + used_event, though never offered */
}

static uint64_t used_bytes(uint16_t num)
{
	return USED_RING + (uint64_t)USED_ELEM_LEN * num + 2;
}

bool virtq_check(const struct virtq_mem *m, const struct virtq *q)
{
	if (!q->num || q->num > VIRTQ_NUM_MAX)
		return false;
	if (q->desc % VIRTQ_DESC_ALIGN || q->avail % VIRTQ_AVAIL_ALIGN ||
	    q->used % VIRTQ_USED_ALIGN)
		return false;
	return gpa(m, q->desc, desc_bytes(q->num)) && gpa(m, q->avail, avail_bytes(q->num)) &&
	       gpa(m, q->used, used_bytes(q->num));
}

/*
 * 16-bit fields the guest may be writing at the same moment: one atomic
 * load each (the parts' alignment was checked), never read twice.
 */
static uint16_t load16(const uint8_t *p, int order)
{
	return __atomic_load_n((const uint16_t *)(const void *)p, order);
}

/* One descriptor, copied once: later checks look at the copy, not at RAM. */
static void load_desc(const struct virtq_mem *m, const struct virtq *q, uint16_t i,
		      struct virtq_desc *d)
{
	memcpy(d, m->ram + q->desc + (uint64_t)i * sizeof(*d), sizeof(*d));
}

int virtq_pop(const struct virtq_mem *m, struct virtq *q, struct virtq_chain *c)
{
	const uint8_t *avail;
	struct virtq_desc d;
	uint16_t idx, i;

	if (!virtq_check(m, q))
		return -EINVAL;
	avail = m->ram + q->avail;
	/* Acquire: the ring entry and the descriptors were written before the index. */
	idx = load16(avail + AVAIL_IDX, __ATOMIC_ACQUIRE);
	if (idx == q->last_avail)
		return 0;
	if ((uint16_t)(idx - q->last_avail) > q->num)
		return -EINVAL; /* more available than the ring holds */
	i = load16(avail + AVAIL_RING + 2u * (q->last_avail % q->num), __ATOMIC_RELAXED);
	if (i >= q->num)
		return -EINVAL;
	q->last_avail++;
	c->n = 0;
	c->bad_addr = c->bad_order = false;
	c->head = i;
	for (;;) {
		struct virtq_buf *b;

		/* A chain longer than the table must visit a descriptor twice. */
		if (c->n == q->num)
			return -EINVAL;
		load_desc(m, q, i, &d);
		if (d.flags & VIRTQ_DESC_F_INDIRECT)
			return -EINVAL;
		b = &c->bufs[c->n++];
		b->len = d.len;
		b->device_writes = d.flags & VIRTQ_DESC_F_WRITE;
		b->hva = gpa(m, d.addr, d.len);
		if (!b->hva)
			c->bad_addr = true;
		if (!b->device_writes && c->n > 1 && c->bufs[c->n - 2].device_writes)
			c->bad_order = true;
		if (!(d.flags & VIRTQ_DESC_F_NEXT))
			return 1;
		if (d.next >= q->num)
			return -EINVAL;
		i = d.next;
	}
}

int virtq_push(const struct virtq_mem *m, struct virtq *q, uint16_t head, uint32_t written)
{
	uint8_t *used, *elem;
	uint32_t id = head;

	if (!virtq_check(m, q))
		return -EINVAL;
	used = m->ram + q->used;
	elem = used + USED_RING + (uint64_t)USED_ELEM_LEN * (q->used_idx % q->num);
	memcpy(elem, &id, sizeof(id));
	memcpy(elem + 4, &written, sizeof(written));
	q->used_idx++;
	/* Release: the driver that sees the new index sees the entry too (2.7.8). */
	__atomic_store_n((uint16_t *)(void *)(used + USED_IDX), q->used_idx, __ATOMIC_RELEASE);
	return 0;
}

bool virtq_wants_interrupt(const struct virtq_mem *m, const struct virtq *q)
{
	if (!virtq_check(m, q))
		return false;
	/*
	 * The store of used->idx must be globally visible before the flag is
	 * read, or a driver re-enabling interrupts in between would wait for
	 * one that never comes (the store-load order x86 does not keep
	 * without a fence).
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return !(load16(m->ram + q->avail + AVAIL_FLAGS, __ATOMIC_RELAXED) &
		 VIRTQ_AVAIL_F_NO_INTERRUPT);
}
