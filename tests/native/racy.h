/* racy.h: instrumented accessors for the native runtime tests. */
#ifndef CSAN_TESTS_NATIVE_RACY_H
#define CSAN_TESTS_NATIVE_RACY_H

#include <stdint.h>

/* Each is one access (or assertion) of the kind its name says, in code built with
 * -fsanitize=thread. */
uint64_t racy_read(uint64_t *p);
void racy_write(uint64_t *p, uint64_t v);
uint64_t racy_read_once(uint64_t *p);
void racy_assert_writer(uint64_t *p);
void racy_assert_access(uint64_t *p);
/* ASSERT_EXCLUSIVE_BITS(*p, mask). */
void racy_assert_bits(uint64_t *p, uint64_t mask);
/* ASSERT_EXCLUSIVE_WRITER_SCOPED(*p) around a call of @during. */
void racy_scoped_writer(uint64_t *p, void (*during)(void));

#endif /* CSAN_TESTS_NATIVE_RACY_H */
