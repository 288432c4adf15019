/* lock.c: the workloads' spinlocks: uninstrumented for csan, instrumented for TSan. */
#include <sched.h>

#include "workloads.h"

/*
 * Built twice: without instrumentation into bench-native, as a kernel's
 * spinlocks are to the code under test (KCSAN needs no happens-before,
 * so its runtime never sees them), and with -fsanitize=thread into the
 * ThreadSanitizer peer, whose race detection rests on happens-before and
 * must see the acquire and release to know the workloads are race-free.
 * Lock i % BENCH_LOCKS guards the workloads' shared data (lock 0 the
 * dense one's table).
 */
#define BENCH_LOCKS 64
static struct {
	int word;
} __attribute__((aligned(64))) locks[BENCH_LOCKS];

/*
 * Test-and-test-and-set, as a kernel's simplest spinlock.  A kernel's
 * holder is never preempted, a thread here may be: on a busy machine
 * spinning for its whole time slice would measure the scheduler, so a
 * waiter yields after a while.
 */
void bench_lock(unsigned int i)
{
	int *w = &locks[i % BENCH_LOCKS].word;
	unsigned int spins = 0;

	while (__atomic_exchange_n(w, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(w, __ATOMIC_RELAXED)) {
			if (++spins % 1024 == 0)
				sched_yield();
			else
				__builtin_ia32_pause();
		}
}

void bench_unlock(unsigned int i)
{
	__atomic_store_n(&locks[i % BENCH_LOCKS].word, 0, __ATOMIC_RELEASE);
}
