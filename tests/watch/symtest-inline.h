/* symtest-inline.h: an inline function from a header, as kernel code has. */
#ifndef SYMTEST_INLINE_H
#define SYMTEST_INLINE_H

extern volatile int symtest_sink;

/* The innermost level of leaf()'s inline chain, in another file. */
static inline __attribute__((always_inline)) int hdr_store(int x)
{
	symtest_sink = x;
	return x + 1;
}

#endif
