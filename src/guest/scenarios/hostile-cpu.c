/* hostile-cpu.c: a CPU that destroys itself, and one that owns its debug registers. */
#include "csan.h"
#include "exception_hook.h"
#include "percpu.h"
#include "scenario.h"

/*
 * triple-fault: CPU 1 loads an empty IDT and touches unmapped memory, so
 * the #PF cannot be delivered, nor the #DF after it: a triple fault
 * (KVM_EXIT_SHUTDOWN on that vCPU).  CPU 0 keeps running meanwhile; the
 * VMM must stop every vCPU and report the run as failed.
 */
#define UNMAPPED_ADDRESS 0x100002000ul

struct idt_pointer {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

static void triple_fault_cpu(void *arg)
{
	static const struct idt_pointer empty = { 0, 0 };

	(void)arg;
	irq_disable();
	__asm__ __volatile__("lidt %0" ::"m"(empty));
	*(volatile unsigned long *)UNMAPPED_ADDRESS = 1;
	for (;;)
		cpu_relax();
}

static int triple_fault_run(void)
{
	unsigned long spins = 0;

	if (csan_ncpus() < 2) {
		csan_result_add("reason=needs-2-cpus");
		return 1;
	}
	printk("triple-fault: CPU 1 goes down, CPU 0 keeps running\n");
	csan_cpu_post(1, triple_fault_cpu, NULL);
	for (;;) {
		cpu_relax();
		if (++spins % 10000000 == 0)
			printk("triple-fault: CPU 0 still running\n");
	}
	return 1;
}

CSAN_SCENARIO("triple-fault", "test: CPU 1 triple-faults while CPU 0 runs", triple_fault_run,
	      CSAN_SCENARIO_TEST_ONLY);

/*
 * What the race detector watches while a CPU plays with its own debug
 * registers: CPU 1's plain accesses to a variable of its own, sampled as
 * usual.  In hardware-watchpoint mode each watch makes csan-vmm load its
 * debug registers on every vCPU, the playing CPU's included.
 */
static uint64_t hostile_watched;
static bool hostile_watch_done;

/* Its own function, so the compiler cannot keep the variable in a register. */
static __noinline void hostile_touch(void)
{
	hostile_watched = hostile_watched + 1; /* plain: sampled for watchpoints */
}

static void hostile_watch_work(void)
{
	while (!READ_ONCE(hostile_watch_done))
		hostile_touch();
}

/*
 * debugreg-self: the guest arms DR0 on a variable of its own, writes it,
 * and takes the #DBs in its own handler (exception_hook.c), as a kernel
 * with kgdb or perf breakpoints would.  In soft-watchpoint mode the debug
 * registers are the guest's: the VMM must pass them through untouched.
 * With two CPUs, CPU 1 keeps the detector watching meanwhile: in
 * hardware-watchpoint mode csan-vmm then loads its own registers on CPU 0
 * again and again, and must keep the guest's DR0 working through it
 * (hwwatch/dr_share.c), so every write still traps exactly once.  Data
 * breakpoints fire on real KVM; PVM never fires them (HOST-FACTS), so the
 * count is printed and the test judges it per host.
 */
#define DEBUGREG_WRITES	   100
#define DEBUGREG_SETTLE_MS 5000 /* most to wait for csan-vmm to see our DR7 */
#define DEBUGREG_GAP_US	   1000 /* spread the writes over CPU 1's watches */
#define VECTOR_DB	   1	/* #DB, the debug exception */
#define DR7_L0		   (1ul << 0)
#define DR7_RW0_WRITE	   (1ul << 16) /* R/W0 = 01: data writes (SDM 17.2.4) */
#define DR7_LEN0_4	   (3ul << 18) /* LEN0 = 11: 4 bytes */
#define DR6_B0		   (1ul << 0)
#define DR6_RESET	   0xffff0ff0ul

static volatile uint32_t debugreg_target __aligned(8);
static volatile unsigned int debugreg_hits;
static volatile unsigned int debugreg_stray;

/*
 * Why this #DB came, with DR6 reset for the next one (the CPU only ever
 * sets its status bits), as a #DB handler does.  Not instrumented, like
 * the handlers that call it: the runtime must not run there.
 */
__attribute__((no_sanitize_thread)) static unsigned long dr6_take(void)
{
	unsigned long dr6;

	__asm__ __volatile__("mov %%dr6, %0" : "=r"(dr6));
	__asm__ __volatile__("mov %0, %%dr6" ::"r"(DR6_RESET));
	return dr6;
}

__attribute__((no_sanitize_thread)) static bool debugreg_db(struct trap_frame *f)
{
	const unsigned long dr6 = dr6_take();

	(void)f;
	if (dr6 & DR6_B0)
		debugreg_hits = debugreg_hits + 1;
	else
		debugreg_stray = debugreg_stray + 1;
	/* A data breakpoint is a trap: RIP is already past the write. */
	return true;
}

__attribute__((no_sanitize_thread)) static void debugreg_arm(unsigned long addr, unsigned long dr7)
{
	__asm__ __volatile__("mov %0, %%dr0" ::"r"(addr));
	__asm__ __volatile__("mov %0, %%dr7" ::"r"(dr7));
}

/*
 * A MOV to DR7 does not leave the guest, so csan-vmm learns of the new
 * breakpoint only when it next loads its registers on this CPU, which
 * every hardware arm or disarm does; until then a watch of its own may
 * hold DR0 (hwwatch/dr_share.c).  Two arms after ours, the first watch's disarm
 * has been loaded here and no later watch takes DR0.  Without hw mode
 * the registers are the guest's at once.
 */
static void debugreg_settle(void)
{
	const uint64_t armed = csan_counter(CSAN_COUNTER_HW_ARMED);
	const uint64_t deadline = deadline_after_us((uint64_t)DEBUGREG_SETTLE_MS * 1000);

	while (csan_watch_hw() && csan_counter(CSAN_COUNTER_HW_ARMED) < armed + 2 &&
	       !deadline_passed(deadline))
		cpu_relax();
}

/* CPU 0 (the only CPU, or with CPU 1 watching): arm DR0, write, disarm. */
static void debugreg_writes(bool spread)
{
	unsigned int i;

	debugreg_arm((uintptr_t)&debugreg_target, DR7_L0 | DR7_RW0_WRITE | DR7_LEN0_4);
	if (spread)
		debugreg_settle();
	for (i = 0; i < DEBUGREG_WRITES; i++) {
		debugreg_target = i;
		if (spread)
			udelay(DEBUGREG_GAP_US);
	}
	debugreg_arm(0, 0);
}

static void debugreg_worker(void *arg)
{
	(void)arg;
	if (this_cpu_id() == 0) {
		debugreg_writes(true);
		WRITE_ONCE(hostile_watch_done, true);
	} else if (this_cpu_id() == 1) {
		hostile_watch_work();
	}
}

static int debugreg_self_run(void)
{
	exception_hook_set(VECTOR_DB, debugreg_db);
	if (csan_ncpus() >= 2)
		csan_run_on_cpus(debugreg_worker, NULL);
	else
		debugreg_writes(false);
	exception_hook_set(VECTOR_DB, NULL);
	printk("debugreg-self: %u writes, %u #DB from DR0, %u other #DB\n", DEBUGREG_WRITES,
	       debugreg_hits, debugreg_stray);
	csan_result_add("writes=%u hits=%u stray=%u", DEBUGREG_WRITES, debugreg_hits,
			debugreg_stray);
	/* All or nothing: a partial count means #DBs were lost or invented. */
	return (debugreg_hits == DEBUGREG_WRITES || debugreg_hits == 0) && !debugreg_stray ? 0 : 1;
}

CSAN_SCENARIO("debugreg-self",
	      "test: the guest arms DR0 itself and handles its own #DB (CPU 1, if any, is watched)",
	      debugreg_self_run, CSAN_SCENARIO_TEST_ONLY);

/*
 * debugreg-step: CPU 0 single-steps itself (RFLAGS.TF) through bursts of
 * instructions and counts each #DB in its own handler, while CPU 1 keeps
 * the race detector watching its own variable.  In hardware-watchpoint
 * mode csan-vmm then holds the debug registers much of the time, so many
 * of the guest's single-step traps arrive as debug exits that are not
 * csan-vmm's, and it must hand each back as exactly one #DB with DR6.BS
 * set.  Every burst must take the same number of traps, and none may come
 * without BS: a lost, doubled or mislabelled #DB shows.
 */
#define STEP_BURSTS 300
#define DR6_BS	    (1ul << 14)

static volatile unsigned int step_traps, step_stray;
static unsigned int step_min = ~0u, step_max;

__attribute__((no_sanitize_thread)) static bool step_db(struct trap_frame *f)
{
	const unsigned long dr6 = dr6_take();

	(void)f;
	if (dr6 & DR6_BS)
		step_traps = step_traps + 1;
	else
		step_stray = step_stray + 1;
	return true;
}

/* TF on, sixteen instructions, TF off: the traps in between are counted. */
__attribute__((no_sanitize_thread)) static __noinline void step_burst(void)
{
	__asm__ __volatile__("pushfq\n\t"
			     "orq $0x100, (%%rsp)\n\t"
			     "popfq\n\t"
			     ".rept 16\n\t"
			     "nop\n\t"
			     ".endr\n\t"
			     "pushfq\n\t"
			     "andq $~0x100, (%%rsp)\n\t"
			     "popfq" ::
				     : "memory", "cc");
}

__attribute__((no_sanitize_thread)) static void step_bursts(void)
{
	unsigned int b, before, n;

	for (b = 0; b < STEP_BURSTS; b++) {
		before = step_traps;
		step_burst();
		n = step_traps - before;
		if (n < step_min)
			step_min = n;
		if (n > step_max)
			step_max = n;
		udelay(2000); /* spread the bursts over CPU 1's watches */
	}
}

static void step_worker(void *arg)
{
	(void)arg;
	if (this_cpu_id() == 0) {
		step_bursts();
		WRITE_ONCE(hostile_watch_done, true);
	} else if (this_cpu_id() == 1) {
		hostile_watch_work();
	}
}

static int debugreg_step_run(void)
{
	if (csan_ncpus() < 2) {
		csan_result_add("reason=needs-2-cpus");
		return 1;
	}
	exception_hook_set(VECTOR_DB, step_db);
	csan_run_on_cpus(step_worker, NULL);
	exception_hook_set(VECTOR_DB, NULL);
	printk("debugreg-step: %u bursts, %u single-step #DB (%u to %u a burst), %u other #DB\n",
	       STEP_BURSTS, step_traps, step_min, step_max, step_stray);
	csan_result_add("bursts=%u traps=%u per_burst_min=%u per_burst_max=%u stray=%u",
			STEP_BURSTS, step_traps, step_min, step_max, step_stray);
	return step_min == step_max && step_min > 0 && !step_stray ? 0 : 1;
}

CSAN_SCENARIO("debugreg-step",
	      "test: CPU 0 single-steps itself and handles its own #DB while CPU 1 is watched",
	      debugreg_step_run, CSAN_SCENARIO_TEST_ONLY);
