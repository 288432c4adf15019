// SPDX-License-Identifier: GPL-2.0
/*
 * csan_race_test.c: csan-vmm's race test, built into its Linux test kernel
 * (tools/linux/build-vmlinux.sh copies this directory to
 * kernel/csan-race-test/).  It does nothing unless the kernel command line
 * asks for it:
 *
 *   csan_race_test=1          run every case, in the order below
 *   csan_race_test=CASE,...   run these cases (names below)
 *   csan_race_test_ms=N       each case runs N ms (default 1500; see
 *                             irq-same-cpu)
 *
 * so the KUnit runs of the same vmlinux are not affected.  It runs at
 * late_initcall time, before KUnit, on CPUs 0 and 1 (it needs both online),
 * and prints on the console:
 *
 *   csan-race-test: start: N ms per case, cases: CASE ...
 *   csan-race-test: case CASE start
 *   csan-race-test: case CASE done: what each side did, KCSAN's counters
 *   csan-race-test: done
 *
 * Each case runs one kthread bound to CPU 0 and one bound to CPU 1 for
 * the same time.  Every racing function is out of line, so it names its
 * frame in a report, and says in its name what it is.
 *
 * uninstr-writer: race_test_uninstr_write() (in csan_race_test_uninstr.c,
 *	built without KCSAN) stores new values to the u64
 *	race_test_uninstr_word in a loop on CPU 1, while the instrumented
 *	race_test_instr_read() reads it plainly on CPU 0.  A real data race,
 *	but KCSAN sees only one side: when it watches a read, the value may
 *	change under it, "race at unknown origin" naming the reader alone
 *	(CONFIG_KCSAN_REPORT_RACE_UNKNOWN_ORIGIN=y, the default).
 *	A debug register on the word (a write watch while a read is watched)
 *	can name the writer too.
 *
 * irq-same-cpu: race_test_irq_task_write() assigns the 16-byte, 16-byte
 *	aligned struct race_test_irq_pair as a whole (a 16-byte plain write,
 *	which KCSAN watches: it assumes only aligned writes of up to 8 bytes
 *	atomic) in task context on CPU 0, while the irq_work handler
 *	race_test_uninstr_irq_read() (uninstrumented) reads both halves in
 *	hard interrupt context on the same CPU 0, queued again and again from
 *	CPU 1.  The case goes on past its time, up to four times as long,
 *	until the handler has run RACE_TEST_IRQ_WATCHED (20) times while
 *	the task was inside a KCSAN watch.  The handler can run inside KCSAN's watch of the task's
 *	write because CONFIG_KCSAN_INTERRUPT_WATCHER=y leaves interrupts on
 *	during a watch.  KCSAN stays silent: the handler's loads are
 *	invisible to it, and they change no value (KCSAN compares no values
 *	of accesses over 8 bytes anyway).  A read-write debug register on
 *	the pair while KCSAN watches the task's write traps the handler's
 *	loads.
 *
 * silent-marked: race_test_marked_read() (READ_ONCE, CPU 0) and
 *	race_test_marked_write() (WRITE_ONCE, CPU 1) on the u64
 *	race_test_marked_word: marked accesses, no data race.
 *
 * silent-locked: race_test_locked_read() (CPU 0) and
 *	race_test_locked_inc() (CPU 1) access the u64 race_test_locked_word
 *	plainly, both under the spinlock race_test_lock: no data race.
 *
 * racy-plain: the control.  race_test_plain_read() (CPU 0) and
 *	race_test_plain_write() (CPU 1), both instrumented, race plainly on
 *	the u64 race_test_plain_word: KCSAN reports it with both stacks,
 *	or as a race at unknown origin naming the reader when the writer
 *	looked for a watchpoint just before the reader's began and stored
 *	during it.  It shows, in the same boot, that KCSAN watched and that
 *	its reports reached the console, so the silence of the other cases
 *	means something.
 *
 * Each closing line gives, per side, the CPU, the racing function and how
 * often it ran, then the change of KCSAN's own counters over the case
 * (watchpoints set up, data races, races at unknown origin; they count
 * the whole kernel, the case's sides being nearly all that runs); for
 * irq-same-cpu also how often the handler ran, and how many of those runs
 * interrupted CPU 0's task inside a KCSAN watch.
 */
#define pr_fmt(fmt) "csan-race-test: " fmt

#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/init.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "csan_race_test.h"
#ifdef CONFIG_KCSAN
#include "../kcsan/kcsan.h"	/* kcsan_counters[] */
#endif

/* --- uninstr-writer -------------------------------------------------- */

u64 race_test_uninstr_word;

RACE_TEST_FN u64 race_test_instr_read(void)
{
	return race_test_uninstr_word;
}

static unsigned long race_test_instr_read_loop(unsigned long deadline, int peer)
{
	unsigned long n = 0;

	while (time_before(jiffies, deadline)) {
		race_test_instr_read();
		if (!(++n % 256))
			cond_resched();
	}
	return n;
}

static unsigned long race_test_uninstr_write_side(unsigned long deadline, int peer)
{
	return race_test_uninstr_write_loop(deadline);
}

/* --- irq-same-cpu ---------------------------------------------------- */

struct race_test_pair race_test_irq_pair __aligned(16);

/*
 * Copied from read-only data, which the compiler does not instrument: the
 * assignment is the one access KCSAN sees, a 16-byte write.  (Built from
 * two values, it would be two 8-byte writes, which KCSAN never watches.)
 */
static const struct race_test_pair race_test_irq_patterns[2] = {
	{ 0x5555555555555555ULL, 0xaaaaaaaaaaaaaaaaULL },
	{ 0xaaaaaaaaaaaaaaaaULL, 0x5555555555555555ULL },
};

RACE_TEST_FN void race_test_irq_task_write(unsigned long i)
{
	race_test_irq_pair = race_test_irq_patterns[i & 1];
}

static unsigned long race_test_irq_task_loop(unsigned long deadline, int peer)
{
	unsigned long n = 0;

	while (time_before(jiffies, deadline) || !READ_ONCE(race_test_irq_stop)) {
		race_test_irq_task_write(n);
		if (!(++n % 256))
			cond_resched();
	}
	return n;
}

static unsigned int race_test_ms = 1500;

/* Queues the handler on the peer, CPU 0, where the task side runs. */
static unsigned long race_test_irq_kick_side(unsigned long deadline, int peer)
{
	return race_test_uninstr_irq_kick_loop(deadline,
					       deadline + 3 * msecs_to_jiffies(race_test_ms), peer);
}

/* --- silent-marked --------------------------------------------------- */

u64 race_test_marked_word;

RACE_TEST_FN u64 race_test_marked_read(void)
{
	return READ_ONCE(race_test_marked_word);
}

RACE_TEST_FN void race_test_marked_write(u64 value)
{
	WRITE_ONCE(race_test_marked_word, value);
}

static unsigned long race_test_marked_read_loop(unsigned long deadline, int peer)
{
	unsigned long n = 0;

	while (time_before(jiffies, deadline)) {
		race_test_marked_read();
		if (!(++n % 256))
			cond_resched();
	}
	return n;
}

static unsigned long race_test_marked_write_loop(unsigned long deadline, int peer)
{
	unsigned long n = 0;

	while (time_before(jiffies, deadline)) {
		race_test_marked_write(n + 1);
		if (!(++n % 256))
			cond_resched();
	}
	return n;
}

/* --- silent-locked --------------------------------------------------- */

static DEFINE_SPINLOCK(race_test_lock);
u64 race_test_locked_word;

RACE_TEST_FN u64 race_test_locked_read(void)
{
	u64 value;

	spin_lock(&race_test_lock);
	value = race_test_locked_word;
	spin_unlock(&race_test_lock);
	return value;
}

RACE_TEST_FN void race_test_locked_inc(void)
{
	spin_lock(&race_test_lock);
	race_test_locked_word++;
	spin_unlock(&race_test_lock);
}

static unsigned long race_test_locked_read_loop(unsigned long deadline, int peer)
{
	unsigned long n = 0;

	while (time_before(jiffies, deadline)) {
		race_test_locked_read();
		if (!(++n % 256))
			cond_resched();
	}
	return n;
}

static unsigned long race_test_locked_inc_loop(unsigned long deadline, int peer)
{
	unsigned long n = 0;

	while (time_before(jiffies, deadline)) {
		race_test_locked_inc();
		if (!(++n % 256))
			cond_resched();
	}
	return n;
}

/* --- racy-plain (the control) ---------------------------------------- */

u64 race_test_plain_word;

RACE_TEST_FN u64 race_test_plain_read(void)
{
	return race_test_plain_word;
}

RACE_TEST_FN void race_test_plain_write(u64 value)
{
	race_test_plain_word = value;
}

static unsigned long race_test_plain_read_loop(unsigned long deadline, int peer)
{
	unsigned long n = 0;

	while (time_before(jiffies, deadline)) {
		race_test_plain_read();
		if (!(++n % 256))
			cond_resched();
	}
	return n;
}

static unsigned long race_test_plain_write_loop(unsigned long deadline, int peer)
{
	unsigned long n = 0;

	while (time_before(jiffies, deadline)) {
		race_test_plain_write(n + 1);
		if (!(++n % 256))
			cond_resched();
	}
	return n;
}

/* --- the runner ------------------------------------------------------ */

struct race_test_side {
	const char *fn;		/* the racing function, for the closing line */
	unsigned long (*loop)(unsigned long deadline, int peer);
};

struct race_test_case {
	const char *name;
	struct race_test_side side[2];	/* side[i] runs on CPU i */
	bool irq;			/* print the handler's counts */
};

static const struct race_test_case race_test_cases[] __initconst = {
	{ "uninstr-writer", {
		{ "race_test_instr_read", race_test_instr_read_loop },
		{ "race_test_uninstr_write", race_test_uninstr_write_side } } },
	{ "irq-same-cpu", {
		{ "race_test_irq_task_write", race_test_irq_task_loop },
		{ "irq_work_queue_on", race_test_irq_kick_side } }, true },
	{ "silent-marked", {
		{ "race_test_marked_read", race_test_marked_read_loop },
		{ "race_test_marked_write", race_test_marked_write_loop } } },
	{ "silent-locked", {
		{ "race_test_locked_read", race_test_locked_read_loop },
		{ "race_test_locked_inc", race_test_locked_inc_loop } } },
	{ "racy-plain", {
		{ "race_test_plain_read", race_test_plain_read_loop },
		{ "race_test_plain_write", race_test_plain_write_loop } } },
};

/* One side's run: what its kthread is given and gives back. */
struct race_test_run {
	const struct race_test_side *side;
	unsigned long deadline;
	int peer;
	unsigned long iterations;
	struct completion done;
};

static int race_test_thread(void *arg)
{
	struct race_test_run *run = arg;

	run->iterations = run->side->loop(run->deadline, run->peer);
	complete(&run->done);
	return 0;
}

/* KCSAN's counters the closing line shows, read before and after a case. */
struct race_test_kcsan {
	long watchpoints, races, unknown_origin;
};

static void __init race_test_kcsan_read(struct race_test_kcsan *k)
{
#ifdef CONFIG_KCSAN
	k->watchpoints = atomic_long_read(&kcsan_counters[KCSAN_COUNTER_SETUP_WATCHPOINTS]);
	k->races = atomic_long_read(&kcsan_counters[KCSAN_COUNTER_DATA_RACES]);
	k->unknown_origin = atomic_long_read(&kcsan_counters[KCSAN_COUNTER_RACES_UNKNOWN_ORIGIN]);
#else
	memset(k, 0, sizeof(*k));
#endif
}

static int __init race_test_run_case(const struct race_test_case *c)
{
	struct race_test_run run[2];
	struct task_struct *task[2];
	struct race_test_kcsan before, after;
	struct race_test_irq_counts irq;
	char irq_part[96] = "";
	unsigned long start, deadline;
	int i;

	pr_info("case %s start\n", c->name);
	for (i = 0; i < 2; i++) {
		run[i].side = &c->side[i];
		run[i].peer = !i;
		init_completion(&run[i].done);
		task[i] = kthread_create(race_test_thread, &run[i], "csan-race/%d", i);
		if (IS_ERR(task[i])) {
			pr_err("case %s: cannot create its kthread for CPU %d (%ld)\n",
			       c->name, i, PTR_ERR(task[i]));
			if (i)
				kthread_stop(task[0]);
			return PTR_ERR(task[i]);
		}
		kthread_bind(task[i], i);
	}

	/* Both sides stop at the same jiffy. */
	start = jiffies;
	deadline = start + msecs_to_jiffies(race_test_ms);
	run[0].deadline = run[1].deadline = deadline;
	race_test_kcsan_read(&before);
	wake_up_process(task[0]);
	wake_up_process(task[1]);
	wait_for_completion(&run[0].done);
	wait_for_completion(&run[1].done);
	race_test_kcsan_read(&after);
	start = jiffies - start;

	if (c->irq) {
		race_test_uninstr_irq_counts(&irq);
		snprintf(irq_part, sizeof(irq_part),
			 ", race_test_uninstr_irq_read on cpu 0 %lu times (%lu in a KCSAN watch)",
			 irq.runs, irq.during_watch);
	}
	pr_info("case %s done: cpu 0 %s %lu times, cpu 1 %s %lu times%s; KCSAN: %ld watchpoints, %ld races, %ld unknown origin; %u ms\n",
		c->name, c->side[0].fn, run[0].iterations, c->side[1].fn, run[1].iterations,
		irq_part, after.watchpoints - before.watchpoints, after.races - before.races,
		after.unknown_origin - before.unknown_origin, jiffies_to_msecs(start));
	return 0;
}

/* --- the command line ------------------------------------------------ */

static char race_test_arg[128] __initdata;

static int __init race_test_setup(char *arg)
{
	strscpy(race_test_arg, arg, sizeof(race_test_arg));
	return 1;
}
__setup("csan_race_test=", race_test_setup);

static int __init race_test_ms_setup(char *arg)
{
	if (kstrtouint(arg, 0, &race_test_ms) || !race_test_ms) {
		pr_err("csan_race_test_ms=%s: want a positive number of ms\n", arg);
		race_test_ms = 1500;
	}
	return 1;
}
__setup("csan_race_test_ms=", race_test_ms_setup);

/* The names of the cases in @bits, each after a space. */
static void __init race_test_names(char *buf, size_t size, unsigned long bits)
{
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(race_test_cases); i++)
		if (bits & (1UL << i))
			len += scnprintf(buf + len, size - len, " %s", race_test_cases[i].name);
}

#define RACE_TEST_ALL ((1UL << ARRAY_SIZE(race_test_cases)) - 1)

/*
 * Which cases the argument names, as bits of race_test_cases[]: "1" or
 * "all" every case, else a comma-separated list.  Returns 0 on an unknown
 * name, which it reports.
 */
static unsigned long __init race_test_selected(void)
{
	char list[sizeof(race_test_arg)], *rest = list, *name, names[128];
	unsigned long bits = 0;
	size_t i;

	if (!strcmp(race_test_arg, "1") || !strcmp(race_test_arg, "all"))
		return RACE_TEST_ALL;
	strscpy(list, race_test_arg, sizeof(list));
	while ((name = strsep(&rest, ","))) {
		for (i = 0; i < ARRAY_SIZE(race_test_cases); i++)
			if (!strcmp(name, race_test_cases[i].name))
				break;
		if (i == ARRAY_SIZE(race_test_cases)) {
			race_test_names(names, sizeof(names), RACE_TEST_ALL);
			pr_err("csan_race_test=%s: no case '%s' (cases:%s; or 1 for all)\n",
			       race_test_arg, name, names);
			return 0;
		}
		bits |= 1UL << i;
	}
	return bits;
}

static int __init race_test_init(void)
{
	char names[128];
	unsigned long bits;
	size_t i;
	int err;

	if (!race_test_arg[0] || !strcmp(race_test_arg, "0"))
		return 0;
	bits = race_test_selected();
	if (!bits)
		return -EINVAL;
	if (!cpu_online(0) || !cpu_online(1)) {
		pr_err("needs CPUs 0 and 1 online; %u online\n", num_online_cpus());
		return -ENODEV;
	}

	race_test_names(names, sizeof(names), bits);
	pr_info("start: %u ms per case, cases:%s\n", race_test_ms, names);
	for (i = 0; i < ARRAY_SIZE(race_test_cases); i++) {
		if (!(bits & (1UL << i)))
			continue;
		err = race_test_run_case(&race_test_cases[i]);
		if (err)
			return err;
	}
	pr_info("done\n");
	return 0;
}
late_initcall(race_test_init);
