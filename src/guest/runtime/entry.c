/* entry.c: the compiler's per-access entry points (__tsan_read8 and kin). */
#include "internal.h"

/*
 * Every plain, unaligned, compound, range and volatile access function
 * that gcc 12 and clang 14 call from code built with -fsanitize=thread
 * (as configure picks the flags for freestanding guest code).  These run
 * on every instrumented access, so this file is built apart
 * (-fomit-frame-pointer -foptimize-sibling-calls, see Makefile.am): each
 * function only runs check_access(), whose every call is the last thing
 * done, so it is a jump.  A slow path entered that way finds the access's
 * return address right above its own frame and the instrumented caller's
 * frame pointer in %rbp, which is what the frame walk in report.c looks
 * for.  Anything that does more after its check (the atomics, the memory
 * intrinsics, the checking API) keeps a frame of its own in core.c.
 */

/* --- plain, unaligned and compound accesses ----------------------------------- */

/*
 * Unaligned variants share the aligned ones' code (clang calls them for
 * under-aligned accesses; the check does not care).  Compound
 * read-modify-writes are clang's -tsan-compound-read-before-write: a write
 * that also reads, never assumed atomic.
 */
#define DEFINE_TSAN_READ_WRITE(size)                                                               \
	void __tsan_read##size(void *ptr);                                                         \
	void __tsan_read##size(void *ptr)                                                          \
	{                                                                                          \
		check_access(ptr, size, 0);                                                        \
	}                                                                                          \
	void __tsan_unaligned_read##size(void *ptr) __attribute__((alias("__tsan_read" #size)));   \
	void __tsan_write##size(void *ptr);                                                        \
	void __tsan_write##size(void *ptr)                                                         \
	{                                                                                          \
		check_access(ptr, size, CSAN_ACCESS_WRITE);                                        \
	}                                                                                          \
	void __tsan_unaligned_write##size(void *ptr) __attribute__((alias("__tsan_write" #size))); \
	void __tsan_read_write##size(void *ptr);                                                   \
	void __tsan_read_write##size(void *ptr)                                                    \
	{                                                                                          \
		check_access(ptr, size, CSAN_ACCESS_COMPOUND | CSAN_ACCESS_WRITE);                 \
	}                                                                                          \
	void __tsan_unaligned_read_write##size(void *ptr)                                          \
		__attribute__((alias("__tsan_read_write" #size)))

DEFINE_TSAN_READ_WRITE(1);
DEFINE_TSAN_READ_WRITE(2);
DEFINE_TSAN_READ_WRITE(4);
DEFINE_TSAN_READ_WRITE(8);
DEFINE_TSAN_READ_WRITE(16);

void __tsan_read_range(void *ptr, size_t size);
void __tsan_read_range(void *ptr, size_t size)
{
	check_access(ptr, size, 0);
}

void __tsan_write_range(void *ptr, size_t size);
void __tsan_write_range(void *ptr, size_t size)
{
	check_access(ptr, size, CSAN_ACCESS_WRITE);
}

/* --- volatile: READ_ONCE and WRITE_ONCE ------------------------------------------ */

/*
 * A volatile access counts as marked when it could be a single untorn
 * load or store: aligned and at most 8 bytes (Linux's READ_ONCE size
 * rule).  A larger or misaligned one is checked like a plain access.
 */
static __always_inline int volatile_type(const void *ptr, size_t size, int type)
{
	bool marked = size <= 8 && ((uintptr_t)ptr & (size - 1)) == 0;

	return type | (marked ? CSAN_ACCESS_ATOMIC : 0);
}

#define DEFINE_TSAN_VOLATILE_READ_WRITE(size)                                                      \
	void __tsan_volatile_read##size(void *ptr);                                                \
	void __tsan_volatile_read##size(void *ptr)                                                 \
	{                                                                                          \
		check_access(ptr, size, volatile_type(ptr, size, 0));                              \
	}                                                                                          \
	void __tsan_unaligned_volatile_read##size(void *ptr)                                       \
		__attribute__((alias("__tsan_volatile_read" #size)));                              \
	void __tsan_volatile_write##size(void *ptr);                                               \
	void __tsan_volatile_write##size(void *ptr)                                                \
	{                                                                                          \
		check_access(ptr, size, volatile_type(ptr, size, CSAN_ACCESS_WRITE));              \
	}                                                                                          \
	void __tsan_unaligned_volatile_write##size(void *ptr)                                      \
		__attribute__((alias("__tsan_volatile_write" #size)))

DEFINE_TSAN_VOLATILE_READ_WRITE(1);
DEFINE_TSAN_VOLATILE_READ_WRITE(2);
DEFINE_TSAN_VOLATILE_READ_WRITE(4);
DEFINE_TSAN_VOLATILE_READ_WRITE(8);
DEFINE_TSAN_VOLATILE_READ_WRITE(16);

/* --- what the runtime needs not track ------------------------------------------------ */

void __tsan_func_entry(void *call_pc);
void __tsan_func_entry(void *call_pc)
{
}

void __tsan_func_exit(void);
void __tsan_func_exit(void)
{
}

/* Called by each instrumented unit's constructor; csan_init() does the work. */
void __tsan_init(void);
void __tsan_init(void)
{
}
