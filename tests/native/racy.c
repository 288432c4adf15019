/* racy.c: instrumented accessors for the native runtime tests (built with -fsanitize=thread). */
#include "csan.h"
#include "racy.h"

/* noinline: each is its own frame, named in the report titles the tests check. */
__attribute__((noinline)) uint64_t racy_read(uint64_t *p)
{
	return *p;
}

__attribute__((noinline)) void racy_write(uint64_t *p, uint64_t v)
{
	*p = v;
}

__attribute__((noinline)) uint64_t racy_read_once(uint64_t *p)
{
	return READ_ONCE(*p);
}

__attribute__((noinline)) void racy_assert_writer(uint64_t *p)
{
	ASSERT_EXCLUSIVE_WRITER(*p);
}

__attribute__((noinline)) void racy_assert_access(uint64_t *p)
{
	ASSERT_EXCLUSIVE_ACCESS(*p);
}

__attribute__((noinline)) void racy_scoped_writer(uint64_t *p, void (*during)(void))
{
	ASSERT_EXCLUSIVE_WRITER_SCOPED(*p);
	during();
}

__attribute__((noinline)) void racy_assert_bits(uint64_t *p, uint64_t mask)
{
	ASSERT_EXCLUSIVE_BITS(*p, mask);
}
