/* clock.h: the monotonic clock, in the units the VMM measures time in. */
#ifndef CSAN_VMM_CLOCK_H
#define CSAN_VMM_CLOCK_H

#include <stdint.h>
#include <time.h>

/* clock_now_ns - CLOCK_MONOTONIC in nanoseconds (never fails on Linux). */
static inline uint64_t clock_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* clock_now_ms - CLOCK_MONOTONIC in milliseconds. */
static inline int64_t clock_now_ms(void)
{
	return (int64_t)(clock_now_ns() / 1000000u);
}

#endif /* CSAN_VMM_CLOCK_H */
