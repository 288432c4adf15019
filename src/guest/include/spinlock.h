/* spinlock.h: test-and-test-and-set spinlocks for the guest. */
#ifndef GUEST_SPINLOCK_H
#define GUEST_SPINLOCK_H

#include "atomic.h"
#include "cpu.h"

typedef struct {
	uint32_t locked;
} spinlock_t;

#define SPINLOCK_INIT                                                                              \
	{                                                                                          \
		0                                                                                  \
	}

static inline bool spin_trylock(spinlock_t *l)
{
	return xchg32(&l->locked, 1) == 0;
}

/*
 * Spins on plain reads between attempts, so waiting CPUs share the cache
 * line instead of bouncing it with locked writes.
 */
static inline void spin_lock(spinlock_t *l)
{
	while (!spin_trylock(l))
		while (READ_ONCE(l->locked))
			cpu_relax();
}

/* x86 stores are release stores: a compiler barrier is all it takes. */
static inline void spin_unlock(spinlock_t *l)
{
	barrier();
	WRITE_ONCE(l->locked, 0);
}

/* For locks also taken in interrupt handlers: returns the saved flags. */
static inline uint64_t spin_lock_irqsave(spinlock_t *l)
{
	uint64_t flags = irq_save();

	spin_lock(l);
	return flags;
}

static inline void spin_unlock_irqrestore(spinlock_t *l, uint64_t flags)
{
	spin_unlock(l);
	irq_restore(flags);
}

#endif /* GUEST_SPINLOCK_H */
