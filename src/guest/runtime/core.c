/* core.c: the atomic and memory-intrinsic entry points (__tsan_*) and the checking API. */
#include "internal.h"

/*
 * The atomics, the memory intrinsics and the checking API.  Each does
 * something after its check, so each is a real function with a frame:
 * the return address it sees is the access, and the frame walk in
 * report.c finds the instrumented caller right above it.  No tail calls:
 * the build uses -fno-optimize-sibling-calls, which keeps that frame in
 * place.  The per-access entry points are in entry.c.
 */

/* --- atomics: performed here, checked as marked accesses ------------------------------ */

/*
 * The instrumentation replaces each __atomic builtin with one of these,
 * which must perform the operation with the memory order given (the
 * compiler's __ATOMIC_* values).  They are marked: checked against other
 * watchpoints, plain and assert ones, but never watched themselves.  A
 * compare-exchange is checked as a write even when it fails: checking it
 * after the fact could race with a writer its success let in.
 */
#define DEFINE_TSAN_ATOMIC_LOAD_STORE(bits)                                                        \
	uint##bits##_t __tsan_atomic##bits##_load(const uint##bits##_t *ptr, int mo);              \
	uint##bits##_t __tsan_atomic##bits##_load(const uint##bits##_t *ptr, int mo)               \
	{                                                                                          \
		check_access(ptr, bits / 8, CSAN_ACCESS_ATOMIC);                                   \
		return __atomic_load_n(ptr, mo);                                                   \
	}                                                                                          \
	void __tsan_atomic##bits##_store(uint##bits##_t *ptr, uint##bits##_t v, int mo);           \
	void __tsan_atomic##bits##_store(uint##bits##_t *ptr, uint##bits##_t v, int mo)            \
	{                                                                                          \
		check_access(ptr, bits / 8, CSAN_ACCESS_WRITE | CSAN_ACCESS_ATOMIC);               \
		__atomic_store_n(ptr, v, mo);                                                      \
	}

#define ATOMIC_RMW_TYPE (CSAN_ACCESS_COMPOUND | CSAN_ACCESS_WRITE | CSAN_ACCESS_ATOMIC)

#define DEFINE_TSAN_ATOMIC_RMW(op, bits, builtin)                                                  \
	uint##bits##_t __tsan_atomic##bits##_##op(uint##bits##_t *ptr, uint##bits##_t v, int mo);  \
	uint##bits##_t __tsan_atomic##bits##_##op(uint##bits##_t *ptr, uint##bits##_t v, int mo)   \
	{                                                                                          \
		check_access(ptr, bits / 8, ATOMIC_RMW_TYPE);                                      \
		return builtin(ptr, v, mo);                                                        \
	}

#define DEFINE_TSAN_ATOMIC_CMPXCHG(bits, strength, weak)                                           \
	int __tsan_atomic##bits##_compare_exchange_##strength(                                     \
		uint##bits##_t *ptr, uint##bits##_t *exp, uint##bits##_t v, int mo, int fail_mo);  \
	int __tsan_atomic##bits##_compare_exchange_##strength(                                     \
		uint##bits##_t *ptr, uint##bits##_t *exp, uint##bits##_t v, int mo, int fail_mo)   \
	{                                                                                          \
		check_access(ptr, bits / 8, ATOMIC_RMW_TYPE);                                      \
		return __atomic_compare_exchange_n(ptr, exp, v, weak, mo, fail_mo);                \
	}

#define DEFINE_TSAN_ATOMIC_CMPXCHG_VAL(bits)                                                       \
	uint##bits##_t __tsan_atomic##bits##_compare_exchange_val(                                 \
		uint##bits##_t *ptr, uint##bits##_t exp, uint##bits##_t v, int mo, int fail_mo);   \
	uint##bits##_t __tsan_atomic##bits##_compare_exchange_val(                                 \
		uint##bits##_t *ptr, uint##bits##_t exp, uint##bits##_t v, int mo, int fail_mo)    \
	{                                                                                          \
		check_access(ptr, bits / 8, ATOMIC_RMW_TYPE);                                      \
		__atomic_compare_exchange_n(ptr, &exp, v, 0, mo, fail_mo);                         \
		return exp;                                                                        \
	}

#define DEFINE_TSAN_ATOMIC_OPS(bits)                                                               \
	DEFINE_TSAN_ATOMIC_LOAD_STORE(bits)                                                        \
	DEFINE_TSAN_ATOMIC_RMW(exchange, bits, __atomic_exchange_n)                                \
	DEFINE_TSAN_ATOMIC_RMW(fetch_add, bits, __atomic_fetch_add)                                \
	DEFINE_TSAN_ATOMIC_RMW(fetch_sub, bits, __atomic_fetch_sub)                                \
	DEFINE_TSAN_ATOMIC_RMW(fetch_and, bits, __atomic_fetch_and)                                \
	DEFINE_TSAN_ATOMIC_RMW(fetch_or, bits, __atomic_fetch_or)                                  \
	DEFINE_TSAN_ATOMIC_RMW(fetch_xor, bits, __atomic_fetch_xor)                                \
	DEFINE_TSAN_ATOMIC_RMW(fetch_nand, bits, __atomic_fetch_nand)                              \
	DEFINE_TSAN_ATOMIC_CMPXCHG(bits, strong, 0)                                                \
	DEFINE_TSAN_ATOMIC_CMPXCHG(bits, weak, 1)                                                  \
	DEFINE_TSAN_ATOMIC_CMPXCHG_VAL(bits)

DEFINE_TSAN_ATOMIC_OPS(8)
DEFINE_TSAN_ATOMIC_OPS(16)
DEFINE_TSAN_ATOMIC_OPS(32)
DEFINE_TSAN_ATOMIC_OPS(64)

/*
 * On x86-64 only a seq_cst fence orders anything the hardware would not
 * (a store before a load); the others only restrain the compiler.  A
 * locked OR to the stack does it: clang's __atomic_thread_fence emits
 * MFENCE, an SSE2 instruction the guest keeps away from its emulators.
 */
void __tsan_atomic_thread_fence(int mo);
void __tsan_atomic_thread_fence(int mo)
{
	if (mo == __ATOMIC_SEQ_CST)
		__asm__ __volatile__("lock orq $0, (%%rsp)" ::: "memory", "cc");
	else
		__asm__ __volatile__("" ::: "memory");
}

void __tsan_atomic_signal_fence(int mo);
void __tsan_atomic_signal_fence(int mo)
{
	__asm__ __volatile__("" ::: "memory");
}

/* --- memory intrinsics ----------------------------------------------------------------- */

/*
 * gcc 12 and clang 14 call plain memcpy/memset/memmove from instrumented
 * code (clang also for struct copies), and newer clang calls these.  The
 * guest build redirects the plain names in instrumented objects to these
 * (objcopy --redefine-sym, see Makefile.am), the way the user-space TSan
 * runtime intercepts them; the kernel's own calls stay unchecked.
 */
void *__tsan_memcpy(void *dst, const void *src, size_t len);
void *__tsan_memcpy(void *dst, const void *src, size_t len)
{
	check_access(src, len, 0);
	check_access(dst, len, CSAN_ACCESS_WRITE);
	return __builtin_memcpy(dst, src, len);
}

void *__tsan_memmove(void *dst, const void *src, size_t len);
void *__tsan_memmove(void *dst, const void *src, size_t len)
{
	check_access(src, len, 0);
	check_access(dst, len, CSAN_ACCESS_WRITE);
	return __builtin_memmove(dst, src, len);
}

void *__tsan_memset(void *dst, int c, size_t len);
void *__tsan_memset(void *dst, int c, size_t len)
{
	check_access(dst, len, CSAN_ACCESS_WRITE);
	return __builtin_memset(dst, c, len);
}

/* --- the checking API (include/csan.h) -------------------------------------------------- */

void csan_check_access(const volatile void *ptr, size_t size, int type)
{
	check_access(ptr, size, type);
}

bool csan_check_port(void)
{
	struct csan_cpu *c = csan_cpu_at(csan_port_cpu());

	return this_csan_cpu() == c && get_ctx() == csan_ctx_of(c, csan_port_in_interrupt());
}

void kcsan_disable_current(void)
{
	get_ctx()->disable_count++;
}

/* Unbalanced: stay enabled rather than go negative and never check again. */
void kcsan_enable_current(void)
{
	struct csan_ctx *ctx = get_ctx();

	if (ctx->disable_count > 0)
		ctx->disable_count--;
}

/* Saturating: an unbalanced begin in a loop must not wrap to "not atomic". */
void kcsan_nestable_atomic_begin(void)
{
	struct csan_ctx *ctx = get_ctx();

	if (ctx->atomic_nest_count < INT16_MAX)
		ctx->atomic_nest_count++;
}

void kcsan_nestable_atomic_end(void)
{
	struct csan_ctx *ctx = get_ctx();

	if (ctx->atomic_nest_count > 0)
		ctx->atomic_nest_count--;
}

void kcsan_flat_atomic_begin(void)
{
	get_ctx()->in_flat_atomic = true;
}

void kcsan_flat_atomic_end(void)
{
	get_ctx()->in_flat_atomic = false;
}

/* A count below zero means none (as in Linux), and keeps the fast path. */
void kcsan_atomic_next(int n)
{
	get_ctx()->atomic_next = n > 0 ? n : 0;
}

void kcsan_set_access_mask(unsigned long mask)
{
	get_ctx()->access_mask = mask;
}

/*
 * The scope's stack starts at the frame of the function that opened it
 * (this function's caller), whatever it calls later: a racing access is
 * reported at the assertion, as in Linux.
 */
struct kcsan_scoped_access *kcsan_begin_scoped_access(const volatile void *ptr, size_t size,
						      int type, struct kcsan_scoped_access *sa)
{
	struct csan_ctx *ctx = get_ctx();

	check_access(ptr, size, type);
	sa->ptr = ptr;
	sa->size = size;
	sa->type = type;
	sa->ip = CSAN_RET_IP;
	sa->fp = *(const uintptr_t *)__builtin_frame_address(0);
	sa->next = ctx->scoped;
	csan_ctx_set_scoped(ctx, sa);
	return sa;
}

void kcsan_end_scoped_access(struct kcsan_scoped_access *sa)
{
	struct csan_ctx *ctx = get_ctx();
	struct kcsan_scoped_access **p;

	/* Scopes end innermost first, so this finds @sa at once. */
	for (p = &ctx->scoped; *p; p = &(*p)->next) {
		if (*p == sa) {
			*p = sa->next;
			break;
		}
	}
	csan_ctx_set_scoped(ctx, ctx->scoped);
	check_access(sa->ptr, sa->size, sa->type);
}
