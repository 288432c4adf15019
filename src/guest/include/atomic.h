/* atomic.h: lock-prefixed read-modify-write helpers (x86-64, TSO). */
#ifndef GUEST_ATOMIC_H
#define GUEST_ATOMIC_H

#include "compiler.h"

/*
 * Written as inline asm rather than __atomic builtins: GCC implements a
 * sequentially consistent store with MFENCE, which the emulators these
 * guests run under are not known to handle, and the kernel side must stay
 * uninstrumented whatever flags scenarios are built with.  On x86 every
 * locked instruction is a full barrier.
 */

static inline uint32_t xchg32(uint32_t *p, uint32_t v)
{
	__asm__ __volatile__("xchg %0, %1" : "+r"(v), "+m"(*p)::"memory");
	return v;
}

static inline uint64_t xchg64(uint64_t *p, uint64_t v)
{
	__asm__ __volatile__("xchg %0, %1" : "+r"(v), "+m"(*p)::"memory");
	return v;
}

/* Returns the value found; the swap happened when it equals @old. */
static inline uint32_t cmpxchg32(uint32_t *p, uint32_t old, uint32_t v)
{
	__asm__ __volatile__("lock cmpxchg %2, %1" : "+a"(old), "+m"(*p) : "r"(v) : "memory");
	return old;
}

static inline uint64_t cmpxchg64(uint64_t *p, uint64_t old, uint64_t v)
{
	__asm__ __volatile__("lock cmpxchg %2, %1" : "+a"(old), "+m"(*p) : "r"(v) : "memory");
	return old;
}

/* Adds @v and returns the new value. */
static inline uint32_t atomic_add_return32(uint32_t *p, uint32_t v)
{
	uint32_t old = v;

	__asm__ __volatile__("lock xadd %0, %1" : "+r"(old), "+m"(*p)::"memory");
	return old + v;
}

static inline uint64_t atomic_add_return64(uint64_t *p, uint64_t v)
{
	uint64_t old = v;

	__asm__ __volatile__("lock xadd %0, %1" : "+r"(old), "+m"(*p)::"memory");
	return old + v;
}

static inline void atomic_inc32(uint32_t *p)
{
	__asm__ __volatile__("lock incl %0" : "+m"(*p)::"memory");
}

/* Decrements and returns true when the result is zero. */
static inline bool atomic_dec_and_test32(uint32_t *p)
{
	bool zero;

	__asm__ __volatile__("lock decl %0; setz %1" : "+m"(*p), "=qm"(zero)::"memory");
	return zero;
}

/* A full memory barrier without MFENCE (see above). */
static inline void smp_mb(void)
{
	__asm__ __volatile__("lock addl $0, (%%rsp)" ::: "memory", "cc");
}

#endif /* GUEST_ATOMIC_H */
