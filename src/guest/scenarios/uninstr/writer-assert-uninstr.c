/* writer-assert-uninstr.c: writer-assert-uninstr's buggy writer, built without instrumentation. */
#include "compiler.h"
#include "halves.h"

/* The bug: a second writer that does not take the lock, and that no check sees. */
__noinline void writer_assert_uninstr_buggy_writer(uint64_t v)
{
	WRITE_ONCE(writer_assert_uninstr_val, v);
}
