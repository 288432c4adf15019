/* fault.c: a page fault three calls deep, for the host's fault report. */
#include "scenario.h"

/*
 * Above the 4 GiB identity map: the PDPT has no entry there, so a write
 * is a not-present #PF (vector 14, error code 2).
 */
#define UNMAPPED_ADDRESS 0x100001000ul

/*
 * Each level is noinline with its own frame, and the empty asm after each
 * call keeps the compiler from turning it into a tail jump, so the host's
 * unwinder sees fault_inner <- fault_middle <- fault_outer <- fault_run.
 */
__noinline void fault_inner(unsigned long addr);
__noinline void fault_middle(unsigned long addr);
__noinline void fault_outer(unsigned long addr);

__noinline void fault_inner(unsigned long addr)
{
	/*
	 * The pointer goes through a stack slot so that this function has a
	 * frame: GCC 12 builds a leaf that needs no stack without one, even
	 * with -mno-omit-leaf-frame-pointer, and then a frame-pointer walk
	 * would miss fault_middle.
	 */
	volatile unsigned long *volatile p = (volatile unsigned long *)addr;

	*p = 0xdead;
	barrier();
}

__noinline void fault_middle(unsigned long addr)
{
	fault_inner(addr);
	barrier();
}

__noinline void fault_outer(unsigned long addr)
{
	fault_middle(addr);
	barrier();
}

static int fault_run(void)
{
	fault_outer(UNMAPPED_ADDRESS);
	printk("fault: the write to 0x%lx did not fault\n", UNMAPPED_ADDRESS);
	csan_result_add("reason=no-fault");
	return 1;
}

CSAN_SCENARIO("fault", "test: #PF writing an unmapped address, three calls deep", fault_run,
	      CSAN_SCENARIO_TEST_ONLY);
