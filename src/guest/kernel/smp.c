/* smp.c: starting the APs (INIT-SIPI-SIPI) and handing them work. */
#include <csan/abi.h>

#include "apic.h"
#include "atomic.h"
#include "cpu.h"
#include "kstring.h"
#include "panic.h"
#include "percpu.h"
#include "printk.h"
#include "smp.h"
#include "traps.h"
#include "tsc.h"
#include "x86.h"

struct percpu percpu[CSAN_MAX_CPUS];

/* The kernel stacks; CPU 0's is set up by arch/entry.S. */
uint8_t cpu_stacks[CSAN_MAX_CPUS][STACK_SIZE] __section(".bss.stacks") __aligned(PAGE_SIZE);

/* Read by arch/entry.S's ap_start64: the stack of the AP being started. */
uint64_t ap_boot_stack;
static uint32_t ap_boot_cpu;

static unsigned int ncpus_online = 1;
static unsigned int ncpus_expected = 1;
static uint32_t ap_timer_hz;

/* arch/trampoline.S */
extern const char trampoline_start[], trampoline_end[];

/*
 * INIT-SIPI-SIPI timing from the MP specification (B.4): 10 ms after
 * INIT, 200 us after each SIPI.  An AP then needs a few ms more on an
 * emulating host (~3 ms on PVM) to check in; the timeout is generous
 * because hosts running several vCPUs on few cores can be slow.
 */
#define INIT_DELAY_US	      10000
#define SIPI_DELAY_US	      200
#define AP_CHECKIN_TIMEOUT_US 5000000

void percpu_setup(unsigned int cpu)
{
	struct percpu *p = &percpu[cpu];

	p->self = p;
	p->cpu = cpu;
	csan_csanos_cpu_setup(p);
	wrmsr(MSR_GS_BASE, (uintptr_t)p);
}

unsigned int csan_ncpus(void)
{
	return READ_ONCE(ncpus_online);
}

unsigned int csan_cpus_expected(void)
{
	return ncpus_expected;
}

uint64_t csan_cpu_ticks(unsigned int cpu)
{
	return READ_ONCE(percpu[cpu].ticks);
}

/* Idle: run posted work, else sleep until an IPI or a timer tick. */
static __noreturn void idle_loop(void)
{
	struct mailbox *mb = &this_cpu()->mbox;

	for (;;) {
		uint32_t seq;

		irq_disable();
		seq = READ_ONCE(mb->posted);
		if (seq == mb->done) {
			irq_enable_and_halt();
			continue;
		}
		irq_enable();
		/* posted was read before fn and arg: x86 keeps loads in order. */
		barrier();
		mb->fn(mb->arg);
		barrier();
		WRITE_ONCE(mb->done, seq);
		lapic_send_ipi(percpu[READ_ONCE(mb->poster)].apic_id, WAKE_VECTOR);
	}
}

__noreturn void ap_main(void)
{
	unsigned int cpu = READ_ONCE(ap_boot_cpu);
	struct percpu *me;

	percpu_setup(cpu);
	idt_load();
	lapic_init();
	lapic_timer_start(ap_timer_hz);
	me = this_cpu();
	/* The boot CPU waits for this before starting the next AP. */
	WRITE_ONCE(me->online, 1);
	idle_loop();
}

static bool wait_online(struct percpu *p, uint64_t us)
{
	uint64_t deadline = deadline_after_us(us);

	while (!READ_ONCE(p->online))
		if (deadline_passed(deadline))
			return false;
		else
			cpu_relax();
	return true;
}

static void start_ap(unsigned int cpu)
{
	struct percpu *p = &percpu[cpu];

	WRITE_ONCE(ap_boot_cpu, cpu);
	WRITE_ONCE(ap_boot_stack, (uintptr_t)cpu_stacks[cpu] + STACK_SIZE);
	barrier();

	lapic_send_init(p->apic_id);
	udelay(INIT_DELAY_US);
	lapic_send_sipi(p->apic_id, TRAMPOLINE_BASE >> 12);
	if (wait_online(p, SIPI_DELAY_US))
		return;
	/* A second SIPI, in case the first was lost; ignored if it was not. */
	lapic_send_sipi(p->apic_id, TRAMPOLINE_BASE >> 12);
	if (!wait_online(p, AP_CHECKIN_TIMEOUT_US))
		panic("CPU %u (APIC ID %u) did not start within %u ms of INIT-SIPI-SIPI", cpu,
		      p->apic_id, AP_CHECKIN_TIMEOUT_US / 1000);
}

void smp_boot(const uint32_t *apic_ids, unsigned int count, uint32_t timer_hz)
{
	unsigned int cpu;

	ncpus_expected = count;
	ap_timer_hz = timer_hz;
	for (cpu = 0; cpu < count; cpu++)
		percpu[cpu].apic_id = apic_ids[cpu];
	if (count < 2)
		return;

	memcpy((void *)(uintptr_t)TRAMPOLINE_BASE, trampoline_start,
	       (size_t)(trampoline_end - trampoline_start));
	/* One at a time: each AP uses the shared ap_boot_* variables. */
	for (cpu = 1; cpu < count; cpu++) {
		start_ap(cpu);
		WRITE_ONCE(ncpus_online, cpu + 1);
	}
}

/* Sleep until woken: the work's completion IPI, or at worst a timer tick. */
static void wait_for(const uint32_t *a, const uint32_t *b)
{
	uint64_t flags = irq_save();

	while (READ_ONCE(*a) != READ_ONCE(*b)) {
		if (flags & X86_EFLAGS_IF) {
			irq_enable_and_halt();
			irq_disable();
		} else {
			/* Called with interrupts off: no wake-up can come; spin. */
			cpu_relax();
		}
	}
	irq_restore(flags);
}

void csan_cpu_wait(unsigned int cpu)
{
	struct mailbox *mb = &percpu[cpu].mbox;

	wait_for(&mb->posted, &mb->done);
}

void csan_cpu_post(unsigned int cpu, csan_work_fn fn, void *arg)
{
	struct mailbox *mb = &percpu[cpu].mbox;

	if (cpu == this_cpu_id() || cpu >= csan_ncpus())
		panic("csan_cpu_post: cannot post to CPU %u (this is CPU %u, %u online)", cpu,
		      this_cpu_id(), csan_ncpus());
	csan_cpu_wait(cpu);
	mb->fn = fn;
	mb->arg = arg;
	mb->poster = this_cpu_id();
	/* fn, arg and poster are visible before posted (x86 stores in order). */
	barrier();
	WRITE_ONCE(mb->posted, mb->posted + 1);
	lapic_send_ipi(percpu[cpu].apic_id, WAKE_VECTOR);
}

void csan_run_on_cpus(csan_work_fn fn, void *arg)
{
	unsigned int me = this_cpu_id(), n = csan_ncpus(), cpu;

	for (cpu = 0; cpu < n; cpu++)
		if (cpu != me)
			csan_cpu_post(cpu, fn, arg);
	fn(arg);
	for (cpu = 0; cpu < n; cpu++)
		if (cpu != me)
			csan_cpu_wait(cpu);
}
