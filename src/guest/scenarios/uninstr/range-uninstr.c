/* range-uninstr.c: range-uninstr's writer, built without instrumentation. */
#include "compiler.h"
#include "halves.h"

/* A plain store into the struct's last field, from code the runtime never hears of. */
__noinline void range_uninstr_store(uint64_t v)
{
	range_uninstr_obj.tail = v;
}
