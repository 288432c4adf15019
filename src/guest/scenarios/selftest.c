/* selftest.c: the platform selftest: CPUs, timer interrupts, a shared lock, the port hooks. */
#include "csan.h"
#include "scenario.h"
#include "traps.h"

/*
 * Increments per CPU.  Each takes ~20 instructions with the lock, so even
 * at PVM's ~1.6 M emulated instructions/s per vCPU this is ~15 ms.
 */
#define INCREMENTS_PER_CPU 1000
/* Timer ticks each CPU must see: a few, so one stray interrupt is not enough. */
#define MIN_TICKS	 5
#define TICKS_TIMEOUT_US 2000000

static spinlock_t counter_lock = SPINLOCK_INIT;
static uint64_t counter;

/*
 * The race detector's port, checked on every CPU in task context and in
 * its first timer interrupt after the hook is set: once per CPU, so the
 * ticks of many vCPUs do not all meet on one shared counter.
 */
static uint32_t port_wrong;
static uint8_t port_checked_in_irq[CSAN_MAX_CPUS];

static void check_port(void)
{
	if (!csan_check_port())
		__atomic_fetch_add(&port_wrong, 1, __ATOMIC_RELAXED);
}

static void check_port_in_tick(void)
{
	unsigned int cpu = this_cpu_id() & (CSAN_MAX_CPUS - 1);

	if (READ_ONCE(port_checked_in_irq[cpu]))
		return;
	check_port();
	WRITE_ONCE(port_checked_in_irq[cpu], 1);
}

/* The first CPU whose interrupt has not run the check yet, or ncpus. */
static unsigned int first_unchecked_cpu(unsigned int ncpus)
{
	unsigned int cpu;

	for (cpu = 0; cpu < ncpus; cpu++)
		if (!READ_ONCE(port_checked_in_irq[cpu]))
			break;
	return cpu;
}

static void count_under_lock(void *arg)
{
	unsigned int i;

	check_port();

	for (i = 0; i < INCREMENTS_PER_CPU; i++) {
		spin_lock(&counter_lock);
		counter++;
		spin_unlock(&counter_lock);
	}
}

/* The fewest ticks any CPU has seen; *slowest gets that CPU. */
static uint64_t min_ticks(unsigned int ncpus, unsigned int *slowest)
{
	uint64_t least = UINT64_MAX;
	unsigned int cpu;

	for (cpu = 0; cpu < ncpus; cpu++) {
		uint64_t t = csan_cpu_ticks(cpu);

		if (t < least) {
			least = t;
			*slowest = cpu;
		}
	}
	return least;
}

static int selftest_run(void)
{
	unsigned int ncpus = csan_ncpus(), expected = csan_cpus_expected(), slowest = 0;
	uint64_t want = (uint64_t)ncpus * INCREMENTS_PER_CPU, ticks, deadline;
	unsigned int unchecked;
	uint32_t wrong;

	csan_result_add("cpus=%u", ncpus);
	if (ncpus != expected) {
		printk("selftest: %u of %u CPUs online\n", ncpus, expected);
		csan_result_add("reason=cpus-offline expected=%u", expected);
		return 1;
	}

	timer_hook_set(check_port_in_tick);
	csan_run_on_cpus(count_under_lock, NULL);

	/* Every CPU's timer has been running since it came up; give it time. */
	deadline = deadline_after_us(TICKS_TIMEOUT_US);
	while (((ticks = min_ticks(ncpus, &slowest)) < MIN_TICKS ||
		first_unchecked_cpu(ncpus) < ncpus) &&
	       !deadline_passed(deadline))
		halt();
	timer_hook_set(NULL);

	csan_result_add("ticks=%lu counter=%lu", (unsigned long)ticks, (unsigned long)counter);
	if (counter != want) {
		printk("selftest: counter is %lu, want %lu: the spinlock lost updates\n",
		       (unsigned long)counter, (unsigned long)want);
		csan_result_add("reason=counter want=%lu", (unsigned long)want);
		return 1;
	}
	if (ticks < MIN_TICKS) {
		printk("selftest: CPU %u saw %lu timer interrupts in %u ms, want >= %u\n", slowest,
		       (unsigned long)ticks, TICKS_TIMEOUT_US / 1000, MIN_TICKS);
		csan_result_add("reason=timer slow-cpu=%u", slowest);
		return 1;
	}
	wrong = __atomic_load_n(&port_wrong, __ATOMIC_RELAXED);
	unchecked = first_unchecked_cpu(ncpus);
	if (wrong || unchecked < ncpus) {
		if (wrong)
			printk("selftest: the race detector's port hooks were wrong %u times\n",
			       wrong);
		else
			printk("selftest: CPU %u never checked the port hooks in a timer "
			       "interrupt\n",
			       unchecked);
		csan_result_add("reason=port-hooks");
		return 1;
	}
	return 0;
}

CSAN_SCENARIO(
	"selftest",
	"platform check: all CPUs online, timer interrupts on each, a spinlock-protected counter, "
	"the race detector's port hooks",
	selftest_run, 0);
