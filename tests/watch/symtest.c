/* symtest.c: the test ELF for src/watch: known inline chains, nested calls. */

/*
 * Built once into the checked-in tests/watch/symtest.elf (see
 * tests/watch/gen-symtest.sh), freestanding and linked at a fixed address
 * like the guest kernel, so tests/watch/test-sym.c can expect exact
 * functions, offsets, lines and inline chains.  The program is never run:
 * the tests only read its symbols, DWARF and CFI.  Editing this file means
 * regenerating the ELF and the expected values in test-sym.c.
 */
#include "symtest-inline.h"

volatile int symtest_sink;

/* Two inline levels above hdr_store: leaf -> mid_twice -> hdr_store. */
static inline __attribute__((always_inline)) int mid_twice(int x)
{
	return hdr_store(x) * 2;
}

/* The volatile local gives leaf a stack frame, so it sets up %rbp. */
__attribute__((noinline)) int leaf(int x)
{
	volatile int scratch = x;

	return mid_twice(scratch) + symtest_sink;
}

/* An inline function that calls: return addresses into mid are inline. */
static inline __attribute__((always_inline)) int call_leaf(int x)
{
	return leaf(x + 1);
}

__attribute__((noinline)) int mid(int x)
{
	int r = call_leaf(x);

	symtest_sink = r;
	return r + 3;
}

__attribute__((noinline)) int top(int x)
{
	int r = mid(x * 3);

	symtest_sink = r;
	return r;
}

/*
 * asm_thunk has no CFI, as hand-written entry code often has none: an
 * unwinder must get past it with the frame pointer.
 */
int asm_thunk(int x);
__asm__(".text\n"
	".globl asm_thunk\n"
	".type asm_thunk, @function\n"
	"asm_thunk:\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	call mid\n"
	"	nop\n"
	"	pop %rbp\n"
	"	ret\n"
	".size asm_thunk, .-asm_thunk\n");

__attribute__((noinline)) int top_via_asm(int x)
{
	int r = asm_thunk(x ^ 5);

	symtest_sink = r;
	return r;
}

/* A runtime in miniature: reports drop these frames from the top. */
__attribute__((noinline)) void csan_slow_path(volatile int *p)
{
	symtest_sink = *p;
}

__attribute__((noinline)) void __tsan_read4(volatile int *p)
{
	csan_slow_path(p);
	symtest_sink++;
}

__attribute__((noinline)) void __tsan_write4(volatile int *p)
{
	csan_slow_path(p);
	symtest_sink--;
}

volatile int shared_counter;

/* The two racing functions of the format tests: a reader and a writer. */
__attribute__((noinline)) int reader(void)
{
	__tsan_read4(&shared_counter);
	int v = shared_counter;

	symtest_sink = v;
	return v;
}

__attribute__((noinline)) void writer(int v)
{
	__tsan_write4(&shared_counter);
	shared_counter = v;
	symtest_sink = v;
}

void _start(void);
__attribute__((noreturn)) void _start(void)
{
	for (;;) {
		symtest_sink = top(symtest_sink);
		symtest_sink = top_via_asm(symtest_sink);
		writer(reader());
	}
}
