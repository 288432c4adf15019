/* uninstr-origin.c: uninstr-origin's writer, built without instrumentation. */
#include "compiler.h"
#include "halves.h"

/* A plain write, as the reader's, but from code the runtime never hears of. */
__noinline void uninstr_origin_writer(uint64_t v)
{
	uninstr_origin_val = v;
}
