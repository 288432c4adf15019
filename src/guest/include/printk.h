/* printk.h: formatted console output for the guest. */
#ifndef GUEST_PRINTK_H
#define GUEST_PRINTK_H

#include <stdarg.h>

#include "compiler.h"

/*
 * The formats: %s %c %% and %d %i %u %x %X %p with the length modifiers
 * l, ll, z; flags '-' and '0', a width, or '*'.
 */
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int snprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);

/*
 * printk - format and write one message to the console.  Messages are
 * written whole under a lock, so lines from different CPUs never mix; a
 * message longer than PRINTK_MAX bytes is cut.
 */
#define PRINTK_MAX 512
void printk(const char *fmt, ...) __printf(1, 2);

/* cpu_printk - printk with a "[cpuN] " prefix. */
void cpu_printk(const char *fmt, ...) __printf(1, 2);

/* console_write - write @len bytes under the console lock. */
void console_write(const char *s, size_t len);

/*
 * console_write_emergency - write from a fault or panic: takes the lock
 * when it can, but goes ahead without it if this CPU already holds it (a
 * fault inside printk) or it stays taken too long.
 */
void console_write_emergency(const char *s, size_t len);

#endif /* GUEST_PRINTK_H */
