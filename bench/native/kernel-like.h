/* kernel-like.h: the native benchmark's second workload, less access-dense, kernel-shaped. */
#ifndef CSAN_BENCH_KERNEL_LIKE_H
#define CSAN_BENCH_KERNEL_LIKE_H

/*
 * What kernel code looks like more than bench-loop.h does: a shared
 * hash table (insert, lookup, delete, each bucket under its own lock as
 * in the kernel's hashed tables, keys hashed with a multiply-shift), and
 * a per-CPU ring buffer whose head and tail are published with
 * WRITE_ONCE and read with READ_ONCE, with some arithmetic on each item,
 * as a driver's completion ring.  Fewer memory accesses per instruction,
 * and a share of them marked.  The includer defines KL_LOCK(bucket) and
 * KL_UNLOCK(bucket) (uninstrumented locks).  Race-free.
 */
#include <stddef.h>
#include <stdint.h>

#ifndef READ_ONCE
#define READ_ONCE(x)	 (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
#endif

#define KL_BUCKETS 1024u
#define KL_ENTRIES 512u /* per CPU */
#define KL_RING	   64u

struct kl_entry {
	struct kl_entry *next;
	uint64_t key;
	uint64_t value;
};

struct kl_cpu {
	struct kl_entry entries[KL_ENTRIES];
	uint64_t ring[KL_RING];
	unsigned int head, tail;
	uint64_t checksum;
} __attribute__((aligned(64)));

struct kl_table {
	struct kl_entry *bucket[KL_BUCKETS];
};

static unsigned int kl_hash(uint64_t key)
{
	return (unsigned int)((key * 0x9e3779b97f4a7c15ull) >> 54) & (KL_BUCKETS - 1);
}

static __attribute__((noinline)) struct kl_entry *kl_lookup(struct kl_table *t, uint64_t key)
{
	struct kl_entry *e;

	for (e = t->bucket[kl_hash(key)]; e; e = e->next)
		if (e->key == key)
			return e;
	return NULL;
}

static __attribute__((noinline)) void kl_insert(struct kl_table *t, struct kl_entry *e)
{
	struct kl_entry **b = &t->bucket[kl_hash(e->key)];

	e->next = *b;
	*b = e;
}

static __attribute__((noinline)) void kl_remove(struct kl_table *t, struct kl_entry *e)
{
	struct kl_entry **p;

	for (p = &t->bucket[kl_hash(e->key)]; *p; p = &(*p)->next)
		if (*p == e) {
			*p = e->next;
			return;
		}
}

/* Producer side: false when full. */
static __attribute__((noinline)) int kl_ring_push(struct kl_cpu *c, uint64_t v)
{
	unsigned int head = c->head, tail = READ_ONCE(c->tail);

	if (head - tail == KL_RING)
		return 0;
	c->ring[head % KL_RING] = v;
	WRITE_ONCE(c->head, head + 1);
	return 1;
}

/* Consumer side: false when empty. */
static __attribute__((noinline)) int kl_ring_pop(struct kl_cpu *c, uint64_t *v)
{
	unsigned int tail = c->tail, head = READ_ONCE(c->head);

	if (tail == head)
		return 0;
	*v = c->ring[tail % KL_RING];
	WRITE_ONCE(c->tail, tail + 1);
	return 1;
}

/* Some work per item that touches no shared memory: a checksum step. */
static uint64_t kl_mix(uint64_t v)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdull;
	v ^= v >> 33;
	v *= 0xc4ceb9fe1a85ec53ull;
	return v ^ (v >> 33);
}

/* @iterations rounds for CPU @cpu: its own entries and ring, the shared @t. */
static uint64_t kl_loop(struct kl_cpu *c, unsigned int cpu, unsigned int iterations,
			struct kl_table *t)
{
	uint64_t sum = 0, v;
	unsigned int i;

	for (i = 0; i < KL_ENTRIES; i++) {
		c->entries[i].key = ((uint64_t)cpu << 32) | i;
		c->entries[i].value = i;
		c->entries[i].next = NULL;
	}
	for (i = 0; i < iterations; i++) {
		struct kl_entry *e = &c->entries[i % KL_ENTRIES];
		uint64_t key = ((uint64_t)cpu << 32) | ((i * 7u) % KL_ENTRIES);
		struct kl_entry *found;

		KL_LOCK(kl_hash(e->key));
		if (i >= KL_ENTRIES)
			kl_remove(t, e);
		e->value = kl_mix(i);
		kl_insert(t, e);
		KL_UNLOCK(kl_hash(e->key));
		KL_LOCK(kl_hash(key));
		found = kl_lookup(t, key);
		if (found)
			sum += found->value;
		KL_UNLOCK(kl_hash(key));
		/* The item's own processing (a checksum, say): registers only. */
		v = kl_mix(kl_mix(kl_mix(sum ^ i)));
		if (!kl_ring_push(c, v))
			while (kl_ring_pop(c, &v))
				sum += kl_mix(v);
	}
	while (kl_ring_pop(c, &v))
		sum += kl_mix(v);
	c->checksum = sum;
	return sum;
}

#endif /* CSAN_BENCH_KERNEL_LIKE_H */
