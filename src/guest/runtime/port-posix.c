/* port-posix.c: the runtime's port to Linux user space (pthreads as CPUs). */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "port-posix-api.h"

__thread unsigned int csan_posix_cpu_id;
__thread unsigned int csan_posix_irq_depth;
__thread struct csan_cpu *csan_posix_cpu_state = &csan_cpus[0];
__thread struct csan_ctx *csan_posix_ctx = &csan_cpus[0].task;

/* Thread ids by CPU, for "by task N" in reports of either side. */
static uint32_t cpu_tid[CSAN_MAX_CPUS];
static void (*report_sink)(const struct csan_hc_report *r);

/*
 * Interrupts are signals here: the watcher blocks them, so a handler on
 * its own CPU (thread) cannot run into its watchpoint, as with
 * interrupts off in a kernel.  The old mask stays in the thread; the
 * runtime never nests irq_save.
 */
static __thread sigset_t saved_mask;

unsigned long csan_port_irq_save(void)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved_mask);
	return 1;
}

void csan_port_irq_restore(unsigned long flags)
{
	if (flags)
		pthread_sigmask(SIG_SETMASK, &saved_mask, NULL);
}

uint64_t csan_port_time_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* Busy, as in a kernel with interrupts off: a sleep would hand the CPU away. */
void csan_port_udelay(unsigned int us)
{
	const uint64_t end = csan_port_time_us() + us;

	while (csan_port_time_us() < end)
		csan_port_relax();
}

uint32_t csan_port_random(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint32_t)ts.tv_nsec ^ (uint32_t)getpid() << 16;
}

uint32_t csan_port_task_id(void)
{
	return csan_port_task_id_on(csan_port_cpu());
}

uint32_t csan_port_task_id_on(unsigned int cpu)
{
	return __atomic_load_n(&cpu_tid[cpu & (CSAN_MAX_CPUS - 1)], __ATOMIC_RELAXED);
}

void csan_port_printf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

void csan_posix_set_report_sink(void (*sink)(const struct csan_hc_report *r))
{
	report_sink = sink;
}

/* Without a sink (nobody symbolizes): one line per report, raw addresses. */
void csan_port_report(const struct csan_hc_report *r)
{
	if (report_sink) {
		report_sink(r);
		return;
	}
	fprintf(stderr, "csan: %s report at 0x%llx, ip 0x%llx (no report sink set)\n",
		csan_access_name(r->side[0].access), (unsigned long long)r->side[0].addr,
		(unsigned long long)r->side[0].ip);
}

/* No host to attach to: the knobs are the runtime's own (csan_init's command line). */
bool csan_port_attach(struct csan_control *c)
{
	return false;
}

/* No debug registers for a user process's watches: hardware mode is off. */
uint32_t csan_port_hw_arm(uintptr_t addr, size_t *size, int type, uint32_t *ticket)
{
	*ticket = 0;
	return CSAN_HW_OFF;
}

void csan_port_hw_disarm(uint32_t ticket, struct csan_hc_hw_disarm *out)
{
	__builtin_memset(out, 0, sizeof(*out));
}

/*
 * Run @fn(@arg) as CPU @cpu on this thread.  The frame chain is cut at
 * this function (its saved frame pointer reads 0 while @fn runs), so the
 * runtime's frame walk ends here instead of reading on into libc frames
 * built without frame pointers; it is put back before returning.
 */
__attribute__((noinline)) void csan_posix_run_on_cpu(unsigned int cpu, void (*fn)(void *),
						     void *arg)
{
	volatile uintptr_t *frame = (volatile uintptr_t *)__builtin_frame_address(0);
	const uintptr_t caller_fp = frame[0];

	csan_posix_cpu_id = cpu & (CSAN_MAX_CPUS - 1);
	csan_posix_cpu_state = csan_cpu_at(csan_posix_cpu_id);
	csan_posix_irq_depth = 0;
	csan_posix_ctx = csan_ctx_of(csan_posix_cpu_state, false);
	__atomic_store_n(&cpu_tid[csan_posix_cpu_id], (uint32_t)gettid(), __ATOMIC_RELAXED);
	frame[0] = 0;
	__asm__ __volatile__("" ::: "memory");
	fn(arg);
	__asm__ __volatile__("" ::: "memory");
	frame[0] = caller_fp;
}

/* The context pointer follows the depth: interrupts share one context, as in KCSAN. */
void csan_posix_irq_enter(void)
{
	if (csan_posix_irq_depth++ == 0)
		csan_posix_ctx = csan_ctx_of(csan_posix_cpu_state, true);
	__asm__ __volatile__("" ::: "memory");
}

void csan_posix_irq_exit(void)
{
	__asm__ __volatile__("" ::: "memory");
	if (--csan_posix_irq_depth == 0)
		csan_posix_ctx = csan_ctx_of(csan_posix_cpu_state, false);
}
