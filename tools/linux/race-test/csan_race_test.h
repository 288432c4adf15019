/* SPDX-License-Identifier: GPL-2.0 */
/*
 * csan_race_test.h: what the instrumented half of csan-vmm's race test
 * (csan_race_test.c) and its uninstrumented half (csan_race_test_uninstr.c,
 * built with KCSAN_SANITIZE := n) share.  The cases are described at the
 * top of csan_race_test.c.
 */
#ifndef CSAN_RACE_TEST_H
#define CSAN_RACE_TEST_H

#include <linux/compiler.h>
#include <linux/irq_work.h>
#include <linux/types.h>

/*
 * Racing functions are out of line, never cloned or analysed across calls
 * (a clone would show as race_test_...isra.0 in a stack, and a function
 * found to be pure could be called once for a whole loop), and global.
 * Functions are named race_test_*, not csan_*: csan-vmm leaves frames
 * named csan_* off the top of a stack (its bundled guest's runtime).
 */
#define RACE_TEST_FN noinline __noipa

/* uninstr-writer: a plain 8-byte word, aligned, alone in its 8 bytes. */
extern u64 race_test_uninstr_word;
u64 race_test_instr_read(void);
void race_test_uninstr_write(u64 value);
unsigned long race_test_uninstr_write_loop(unsigned long deadline);

/*
 * irq-same-cpu: a 16-byte struct, 16-byte aligned, that the task side
 * assigns as a whole (one 16-byte plain write, which KCSAN watches) and
 * the interrupt side only reads.
 */
struct race_test_pair {
	u64 lo;
	u64 hi;
};
extern struct race_test_pair race_test_irq_pair;
void race_test_irq_task_write(unsigned long i);
void race_test_uninstr_irq_read(struct irq_work *work);

/*
 * The interrupt side goes on past its deadline until the handler has run
 * this often inside a KCSAN watch of the task (or until its last jiffy),
 * and then sets race_test_irq_stop, which ends the task side too: IPIs
 * come slowly when the vCPUs wait for host CPUs.
 */
#define RACE_TEST_IRQ_WATCHED 20
extern bool race_test_irq_stop;
unsigned long race_test_uninstr_irq_kick_loop(unsigned long deadline, unsigned long last,
					      int cpu);

/* What the interrupt side counted, for the case's closing line. */
struct race_test_irq_counts {
	unsigned long runs;		/* handler runs */
	unsigned long during_watch;	/* runs that saw a KCSAN watchpoint live */
};
void race_test_uninstr_irq_counts(struct race_test_irq_counts *counts);

#endif /* CSAN_RACE_TEST_H */
