/* printk.c: console output, serialized so lines from CPUs never interleave. */
#include <stdarg.h>

#include "atomic.h"
#include "cpu.h"
#include "percpu.h"
#include "platform.h"
#include "printk.h"

/*
 * The console lock records its owner so a fault taken while printing can
 * tell it would deadlock on itself.  Interrupts stay off while it is held:
 * an interrupt handler may print too.
 */
#define NO_OWNER 0xffffffffu
static uint32_t console_owner = NO_OWNER;

/* Spins for a stuck owner before an emergency message goes out anyway. */
#define EMERGENCY_SPINS 10000000u

static void console_lock(void)
{
	uint32_t me = this_cpu_id();

	while (cmpxchg32(&console_owner, NO_OWNER, me) != NO_OWNER)
		while (READ_ONCE(console_owner) != NO_OWNER)
			cpu_relax();
}

static void console_unlock(void)
{
	barrier();
	WRITE_ONCE(console_owner, NO_OWNER);
}

void console_write(const char *s, size_t len)
{
	uint64_t flags = irq_save();

	console_lock();
	platform_write(s, len);
	console_unlock();
	irq_restore(flags);
}

void console_write_emergency(const char *s, size_t len)
{
	uint32_t me = this_cpu_id();
	uint32_t spins = 0;
	bool locked = false;

	if (READ_ONCE(console_owner) != me) {
		while (!(locked = cmpxchg32(&console_owner, NO_OWNER, me) == NO_OWNER) &&
		       spins++ < EMERGENCY_SPINS)
			cpu_relax();
	}
	platform_write(s, len);
	if (locked)
		console_unlock();
}

static void vprintk_prefixed(const char *prefix, const char *fmt, va_list ap)
{
	char buf[PRINTK_MAX];
	size_t n = 0;
	int len;

	if (prefix)
		n = (size_t)snprintf(buf, sizeof(buf), "%s", prefix);
	len = vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	n += (size_t)len;
	if (n > sizeof(buf) - 1)
		n = sizeof(buf) - 1;
	console_write(buf, n);
}

void printk(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintk_prefixed(NULL, fmt, ap);
	va_end(ap);
}

void cpu_printk(const char *fmt, ...)
{
	char prefix[16];
	va_list ap;

	snprintf(prefix, sizeof(prefix), "[cpu%u] ", this_cpu_id());
	va_start(ap, fmt);
	vprintk_prefixed(prefix, fmt, ap);
	va_end(ap);
}
