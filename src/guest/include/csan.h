/* csan.h: the race detector's API for guest code: marking, assertions, control. */
#ifndef GUEST_CSAN_H
#define GUEST_CSAN_H

/*
 * Names and meanings follow Linux's include/linux/kcsan-checks.h and
 * compiler.h, so kernel developers can read and write scenarios without
 * a glossary.  Everything here works the same in instrumented and
 * uninstrumented code: the checks are calls into the runtime
 * (src/guest/runtime/), which is never instrumented itself.
 *
 * Marking, as in the kernel's access-marking guidelines:
 *   READ_ONCE(x), WRITE_ONCE(x, v)  marked accesses: a volatile access,
 *       which -fsanitize=thread with tsan-distinguish-volatile turns into
 *       __tsan_volatile_*; aligned ones of up to 8 bytes count as marked.
 *       Marked accesses never set up watchpoints, but they do run into
 *       plain ones and into assertions.
 *   __atomic builtins               marked too (__tsan_atomic*).
 *   data_race(expr)                 evaluate expr with checking off: an
 *       intentional race, documented in place.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <csan/abi.h>

/* Access types: the CSAN_ACCESS_* bits of the ABI, under KCSAN's names. */
#define KCSAN_ACCESS_WRITE    CSAN_ACCESS_WRITE
#define KCSAN_ACCESS_COMPOUND CSAN_ACCESS_COMPOUND
#define KCSAN_ACCESS_ATOMIC   CSAN_ACCESS_ATOMIC
#define KCSAN_ACCESS_ASSERT   CSAN_ACCESS_ASSERT
#define KCSAN_ACCESS_SCOPED   CSAN_ACCESS_SCOPED

/* The same text as compiler.h, so including both is harmless. */
#ifndef READ_ONCE
#define READ_ONCE(x)	 (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
#endif

/* --- checks ---------------------------------------------------------------- */

/*
 * csan_check_access - check an access of @size bytes at @ptr of KCSAN
 * access @type, as the compiler's instrumentation would; the report names
 * the caller.  Linux: __kcsan_check_access().
 */
void csan_check_access(const volatile void *ptr, size_t size, int type);

/*
 * csan_check_port - whether the port's fast-path hooks agree, here and
 * now, with what they stand for: CSAN_PORT_CPU_STATE with the CPU index,
 * CSAN_PORT_CTX with the interrupt test.  For a port's selftest, in task
 * context and in an interrupt handler (the bundled kernel's selftest
 * scenario does both).  True for a port that defines neither.
 */
bool csan_check_port(void);
#define kcsan_check_access(ptr, size, type) csan_check_access(ptr, size, type)
#define kcsan_check_read(ptr, size)	    csan_check_access(ptr, size, 0)
#define kcsan_check_write(ptr, size)	    csan_check_access(ptr, size, KCSAN_ACCESS_WRITE)

/* Turn checking off and on again for the current context; they nest. */
void kcsan_disable_current(void);
void kcsan_enable_current(void);

/*
 * Regions whose accesses all count as marked (atomic).  Nestable ones
 * count; a flat one is on or off.  Linux uses them for seqlock readers.
 */
void kcsan_nestable_atomic_begin(void);
void kcsan_nestable_atomic_end(void);
void kcsan_flat_atomic_begin(void);
void kcsan_flat_atomic_end(void);

/* The next @n accesses of the current context count as marked. */
void kcsan_atomic_next(int n);

/* Only bits in @mask matter for the next checks' value comparison (0: all). */
void kcsan_set_access_mask(unsigned long mask);

/*
 * data_race - evaluate @expr (and return its value) without reporting
 * races in it: the access is racy on purpose, e.g. a statistics read.
 */
#define data_race(expr)                                                                            \
	({                                                                                         \
		kcsan_disable_current();                                                           \
		__auto_type __csan_v = (expr);                                                     \
		kcsan_enable_current();                                                            \
		__csan_v;                                                                          \
	})

/* --- assertions -------------------------------------------------------------- */

/*
 * ASSERT_EXCLUSIVE_WRITER - there is no concurrent writer of @var: a race
 * with any write (marked or not) is reported as "assert: race".  Readers
 * are fine.  The assertion itself reads nothing that needs marking.
 */
#define ASSERT_EXCLUSIVE_WRITER(var) csan_check_access(&(var), sizeof(var), KCSAN_ACCESS_ASSERT)

/*
 * ASSERT_EXCLUSIVE_ACCESS - no concurrent access at all to @var, read or
 * write, marked or not: for an object this context owns (after a final
 * reference drop, before freeing).
 */
#define ASSERT_EXCLUSIVE_ACCESS(var)                                                               \
	csan_check_access(&(var), sizeof(var), KCSAN_ACCESS_WRITE | KCSAN_ACCESS_ASSERT)

/*
 * ASSERT_EXCLUSIVE_BITS - no concurrent writer changes the bits of @var
 * in @mask; other bits may change.  Only a value change under the mask
 * counts, so a racing write of the other bits is not reported.  The
 * access that follows (the caller reading @var) counts as marked, as in
 * Linux, so it is not reported for the allowed changes either.
 */
#define ASSERT_EXCLUSIVE_BITS(var, mask)                                                           \
	do {                                                                                       \
		kcsan_set_access_mask(mask);                                                       \
		csan_check_access(&(var), sizeof(var), KCSAN_ACCESS_ASSERT);                       \
		kcsan_set_access_mask(0);                                                          \
		kcsan_atomic_next(1);                                                              \
	} while (0)

/*
 * A scoped check: registered by kcsan_begin_scoped_access(), checked
 * then, at every runtime entry of this context until the scope ends, and
 * at the end.  Lives on the caller's stack; the fields are the runtime's.
 */
struct kcsan_scoped_access {
	struct kcsan_scoped_access *next;
	const volatile void *ptr;
	size_t size;
	int type;
	uintptr_t ip; /* where the scope began, for the report */
	uintptr_t fp; /* the frame of the function that opened it */
};

struct kcsan_scoped_access *kcsan_begin_scoped_access(const volatile void *ptr, size_t size,
						      int type, struct kcsan_scoped_access *sa);
void kcsan_end_scoped_access(struct kcsan_scoped_access *sa);

#define __csan_scoped_name(id) __csan_scoped_##id
#define __ASSERT_EXCLUSIVE_SCOPED(var, type, id)                                                   \
	struct kcsan_scoped_access __csan_scoped_name(id)                                          \
		__attribute__((__cleanup__(kcsan_end_scoped_access), __unused__));                 \
	kcsan_begin_scoped_access(&(var), sizeof(var), KCSAN_ACCESS_SCOPED | (type),               \
				  &__csan_scoped_name(id))

/*
 * The _SCOPED forms hold from the statement to the end of the enclosing
 * block: a racing access anywhere in between (in this function or what it
 * calls) is reported, not just one at the assertion.
 */
#define ASSERT_EXCLUSIVE_WRITER_SCOPED(var)                                                        \
	__ASSERT_EXCLUSIVE_SCOPED(var, KCSAN_ACCESS_ASSERT, __COUNTER__)
#define ASSERT_EXCLUSIVE_ACCESS_SCOPED(var)                                                        \
	__ASSERT_EXCLUSIVE_SCOPED(var, KCSAN_ACCESS_WRITE | KCSAN_ACCESS_ASSERT, __COUNTER__)

/* --- control (for the kernel hosting the runtime, and scenarios) --------------- */

/*
 * csan_init - start the runtime: knobs from the csan.NAME=VALUE words of
 * @cmdline (may be NULL), then register with the host (CSAN_HC_ATTACH)
 * where the port supports it.  Call once on the boot CPU, before other
 * CPUs run instrumented code; until then the runtime finds nothing.
 */
void csan_init(const char *cmdline);

/* csan_knob_known - is @name (without "csan.") one of the runtime's knobs? */
int csan_knob_known(const char *name);

/*
 * csan_knob_get - the value in force of knob @name (without "csan.") in
 * *@value, the host's rewrites included; false if there is no such knob.
 * Scenarios whose expected outcome depends on a knob ask it.
 */
bool csan_knob_get(const char *name, uint32_t *value);

/* csan_counter - the current value of counter @c (enum csan_counter), or 0. */
uint64_t csan_counter(unsigned int c);

/* csan_counter_name - KCSAN's name of counter @c, or NULL. */
const char *csan_counter_name(unsigned int c);

/*
 * csan_reports_sent - reports of enum csan_report_kind @kind handed to
 * the report sink so far, or of all kinds for 0.  Scenarios wait on it.
 */
uint64_t csan_reports_sent(unsigned int kind);

/*
 * csan_watch_hw - true while the host backs watchpoints with debug
 * registers (csan-vmm --watch=hw, or toggled at run time).  Scenarios
 * pick their expected outcome by it.
 */
bool csan_watch_hw(void);

/* csan_counters_print - all counters on one console line. */
void csan_counters_print(void);

#endif /* GUEST_CSAN_H */
