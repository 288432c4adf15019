/* compiler.h: compiler attributes and access-marking helpers for the guest. */
#ifndef GUEST_COMPILER_H
#define GUEST_COMPILER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define likely(x)      __builtin_expect(!!(x), 1)
#define unlikely(x)    __builtin_expect(!!(x), 0)
#define __noinline     __attribute__((noinline))
#define __noreturn     __attribute__((noreturn))
#define __used	       __attribute__((used))
#define __aligned(n)   __attribute__((aligned(n)))
#define __section(s)   __attribute__((section(s)))
#define __printf(f, a) __attribute__((format(printf, f, a)))
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Stops the compiler from moving memory accesses across this point. */
#define barrier() __asm__ __volatile__("" ::: "memory")

/*
 * One access the compiler must perform exactly once, as written: no
 * tearing, fusing or re-reading.  Volatile is what gives that, and it is
 * also what -fsanitize=thread's tsan-distinguish-volatile keys on later.
 */
#define READ_ONCE(x)	 (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))

#endif /* GUEST_COMPILER_H */
