/* port-csanos.c: the runtime's port to the bundled kernel (csan-guest). */
#include <stdarg.h>

#include "cpu.h"
#include "internal.h"
#include "platform.h"
#include "printk.h"
#include "spinlock.h"
#include "tsc.h"

unsigned long csan_port_irq_save(void)
{
	return irq_save();
}

void csan_port_irq_restore(unsigned long flags)
{
	irq_restore(flags);
}

void csan_port_udelay(unsigned int us)
{
	udelay(us);
}

uint64_t csan_port_time_us(void)
{
	return uptime_us();
}

/*
 * The fast path's pointers (port-csanos.h).  Set before the CPU loads its
 * GS base, so they are there from its first checked access on; the
 * entries are static, so this may run before csan_init().
 */
void csan_csanos_cpu_setup(struct percpu *p)
{
	struct csan_cpu *c = csan_cpu_at(p->cpu);

	p->race_cpu = c;
	p->race_ctx = csan_ctx_of(c, false);
}

/* Interrupt handlers do not nest here (interrupt gates), so no depth is kept. */
void csan_csanos_irq_enter(struct percpu *p)
{
	p->race_ctx = csan_ctx_of(p->race_cpu, true);
}

void csan_csanos_irq_exit(struct percpu *p)
{
	p->race_ctx = csan_ctx_of(p->race_cpu, false);
}

/* The TSC's low bits are what varies between runs and CPUs. */
uint32_t csan_port_random(void)
{
	uint64_t t = rdtsc();

	return (uint32_t)(t ^ (t >> 29));
}

/* One kernel thread per CPU, numbered from 1 like PIDs: CPU n runs task n+1. */
uint32_t csan_port_task_id(void)
{
	return csan_port_task_id_on(csan_port_cpu());
}

uint32_t csan_port_task_id_on(unsigned int cpu)
{
	return cpu + 1;
}

void csan_port_printf(const char *fmt, ...)
{
	char buf[PRINTK_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 1)
		n = (int)sizeof(buf) - 1;
	console_write(buf, (size_t)n);
}

/* --- the report sink ------------------------------------------------------------------ */

/*
 * On a plain PC nobody symbolizes: print the record in KCSAN's layout
 * with raw addresses, each minus one so that addr2line -fie csan-guest
 * names the line of the access or call.  One console write per report,
 * from a buffer under a lock taken with interrupts off (an interrupt
 * handler on this CPU may report too).
 */
#define RAW_REPORT_MAX 6144
static char raw_buf[RAW_REPORT_MAX];
static size_t raw_len;
static spinlock_t raw_lock = SPINLOCK_INIT;

static void raw_printf(const char *fmt, ...) __printf(1, 2);
static void raw_printf(const char *fmt, ...)
{
	va_list ap;
	int n;

	if (raw_len >= sizeof(raw_buf) - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(raw_buf + raw_len, sizeof(raw_buf) - raw_len, fmt, ap);
	va_end(ap);
	raw_len += (size_t)n;
	if (raw_len > sizeof(raw_buf) - 1)
		raw_len = sizeof(raw_buf) - 1;
}

static void raw_side(const struct csan_report_side *s, bool unknown_origin)
{
	unsigned int i;

	raw_printf("%s%s to 0x%lx of %u bytes by ",
		   unknown_origin ? "race at unknown origin, with " : "",
		   csan_access_name(s->access), (unsigned long)s->addr, s->size);
	if (s->context == CSAN_CTX_INTERRUPT)
		raw_printf("interrupt");
	else
		raw_printf("task %u", s->task_id);
	raw_printf(" on cpu %u:\n 0x%lx\n", s->cpu, (unsigned long)(s->ip - 1));
	for (i = 0; i < s->nret; i++)
		raw_printf(" 0x%lx\n", (unsigned long)(s->ret[i] - 1));
}

static void raw_report(const struct csan_hc_report *r)
{
	static const char rule[] =
		"==================================================================\n";
	const uint32_t both = CSAN_VALUE_OLD | CSAN_VALUE_NEW;
	unsigned int i;

	raw_len = 0;
	raw_printf("%sBUG: KCSAN: %s (raw report: addresses minus 1, for addr2line -fie "
		   "csan-guest)\n\n",
		   rule,
		   r->kind == CSAN_REPORT_ASSERT || (r->side[0].access & CSAN_ACCESS_ASSERT)
			   ? "assert: race"
			   : "data-race");
	for (i = 0; i < r->nsides; i++) {
		raw_side(&r->side[i], r->kind == CSAN_REPORT_UNKNOWN_ORIGIN);
		raw_printf("\n");
	}
	if ((r->value_flags & both) == both && r->old_value != r->new_value)
		raw_printf("value changed: 0x%lx -> 0x%lx\n", (unsigned long)r->old_value,
			   (unsigned long)r->new_value);
	if (r->value_flags & CSAN_VALUE_MASK)
		raw_printf(" bits changed: 0x%lx with mask 0x%lx\n",
			   (unsigned long)((r->old_value ^ r->new_value) & r->mask),
			   (unsigned long)r->mask);
	raw_printf("\nReported by csan (soft watchpoints) on cpu %u\n%s",
		   r->side[r->nsides - 1].cpu, rule);
	console_write(raw_buf, raw_len);
}

void csan_port_report(const struct csan_hc_report *r)
{
	uint64_t flags;

	if (on_csan_vmm()) {
		/* The struct is static and identity-mapped: its address is its GPA. */
		hypercall(CSAN_HC_REPORT, (void *)r);
		return;
	}
	flags = spin_lock_irqsave(&raw_lock);
	raw_report(r);
	spin_unlock_irqrestore(&raw_lock, flags);
}

/*
 * Hardware watches: a hypercall each way, with the arguments on this
 * CPU's stack (identity-mapped, so its address is the guest-physical one).
 * The host arms or disarms every vCPU before the call returns.
 */
uint32_t csan_port_hw_arm(uintptr_t addr, size_t *size, int type, uint32_t *ticket)
{
	struct csan_hc_hw_arm hc __attribute__((aligned(8))) = {
		.addr = addr,
		.size = (uint32_t)*size,
		.access = (uint32_t)type,
	};

	if (!on_csan_vmm())
		return CSAN_HW_OFF;
	hypercall(CSAN_HC_HW_ARM, &hc);
	*ticket = hc.status == CSAN_HW_ARMED ? hc.ticket : 0;
	if (hc.status == CSAN_HW_ARMED && hc.size <= *size)
		*size = hc.size;
	return hc.status;
}

void csan_port_hw_disarm(uint32_t ticket, struct csan_hc_hw_disarm *out)
{
	struct csan_hc_hw_disarm hc __attribute__((aligned(8))) = { .ticket = ticket };

	hypercall(CSAN_HC_HW_DISARM, &hc);
	*out = hc;
}

/*
 * Hand the control block to csan-vmm (CSAN_HC_ATTACH), so the host can
 * change knobs while the guest runs and read the counters at exit.
 */
bool csan_port_attach(struct csan_control *c)
{
	static struct csan_hc_attach hc __attribute__((aligned(8)));

	if (!on_csan_vmm())
		return false;
	hc.control = (uintptr_t)c;
	hc.size = c->size;
	hc.reserved = 0;
	/* Where the host finds each CPU's interrupt nesting (arch/idt.c keeps it). */
	c->irq_depth_base = (uintptr_t)&percpu[0].irq_depth;
	c->irq_depth_stride = sizeof(struct percpu);
	hypercall(CSAN_HC_ATTACH, &hc);
	return true;
}
