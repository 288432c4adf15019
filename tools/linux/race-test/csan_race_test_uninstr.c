// SPDX-License-Identifier: GPL-2.0
/*
 * csan_race_test_uninstr.c: the uninstrumented half of csan-vmm's race
 * test, built with KCSAN_SANITIZE := n (see Kbuild): KCSAN never sees the
 * accesses made here.  These are the accesses that only a debug register
 * on the host can catch.  The cases are described at the top of
 * csan_race_test.c.
 */
#include <linux/irq_work.h>
#include <linux/printk.h>
#include <linux/jiffies.h>
#include <linux/sched.h>
#include <linux/smp.h>

#include "csan_race_test.h"

/*
 * uninstr-writer: plain stores of a new value each time, on the writer's
 * CPU, to the word the instrumented reader reads.  KCSAN cannot see them;
 * at most a watched read sees the value change under it.
 *
 * The first call also prints the kernel's own stack of this function
 * (dump_stack, once): the stack csan-vmm unwinds on the host for a
 * debug-register hit on the store below has the same callers, so a test
 * can compare the two frame by frame (tests/linux/orc-stack.sh).
 */
static bool race_test_stack_shown;

RACE_TEST_FN void race_test_uninstr_write(u64 value)
{
	if (unlikely(!race_test_stack_shown)) {
		race_test_stack_shown = true;
		pr_info("csan-race-test: the writer's own stack:\n");
		dump_stack();
	}
	race_test_uninstr_word = value;
}

unsigned long race_test_uninstr_write_loop(unsigned long deadline)
{
	unsigned long n = 0;

	while (time_before(jiffies, deadline)) {
		race_test_uninstr_write(n + 1);
		if (!(++n % 256))
			cond_resched();
	}
	return n;
}

/*
 * irq-same-cpu: the interrupt side, an irq_work handler.  It runs in
 * hard interrupt context on the CPU it was queued on and only reads the
 * pair, with plain loads: a watch on the task's write sees no value
 * change and no instrumented access, so KCSAN stays silent, while a
 * read-write data breakpoint on the pair traps these loads.
 */
static u64 race_test_irq_sink;
static unsigned long race_test_irq_runs;
static unsigned long race_test_irq_during_watch;
bool race_test_irq_stop;

RACE_TEST_FN void race_test_uninstr_irq_read(struct irq_work *work)
{
	struct race_test_pair seen = race_test_irq_pair;

	/* Both halves are used, so both loads stay. */
	race_test_irq_sink += seen.lo ^ seen.hi;
	race_test_irq_runs++;
#ifdef CONFIG_KCSAN
	/*
	 * The interrupted task is inside kcsan_setup_watchpoint() (which
	 * holds disable_scoped raised around its watch): this run fell in a
	 * KCSAN watch, most likely the one on the pair.
	 */
	if (current->kcsan_ctx.disable_scoped > 0)
		race_test_irq_during_watch++;
#endif
}

static struct irq_work race_test_irq_work = IRQ_WORK_INIT(race_test_uninstr_irq_read);

/*
 * Runs on another CPU and keeps the handler coming on @cpu: queue it,
 * wait for it to have run, queue it again, until @deadline and then on
 * until RACE_TEST_IRQ_WATCHED runs fell in a watch, or @last.  Returns
 * how often it queued.
 */
unsigned long race_test_uninstr_irq_kick_loop(unsigned long deadline, unsigned long last,
					      int cpu)
{
	unsigned long n = 0, i = 0;

	race_test_irq_runs = 0;
	race_test_irq_during_watch = 0;
	WRITE_ONCE(race_test_irq_stop, false);
	while (time_before(jiffies, deadline) ||
	       (READ_ONCE(race_test_irq_during_watch) < RACE_TEST_IRQ_WATCHED &&
		time_before(jiffies, last))) {
		if (irq_work_queue_on(&race_test_irq_work, cpu))
			n++;
		while (irq_work_is_busy(&race_test_irq_work))
			cpu_relax();
		if (!(++i % 256))
			cond_resched();
	}
	irq_work_sync(&race_test_irq_work);
	WRITE_ONCE(race_test_irq_stop, true);
	return n;
}

/* Called after the kick loop returned (it waited for the last run). */
void race_test_uninstr_irq_counts(struct race_test_irq_counts *counts)
{
	counts->runs = race_test_irq_runs;
	counts->during_watch = race_test_irq_during_watch;
}
