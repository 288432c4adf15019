/* log.c: every message csan-vmm writes for the user, with one prefix and one style. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "vmm/base/log.h"

/* Read and written atomically: set at start-up, read from any thread. */
static void (*before_output)(void);

void log_set_before_output(void (*fn)(void))
{
	__atomic_store_n(&before_output, fn, __ATOMIC_RELEASE);
}

void log_before_output(void)
{
	void (*fn)(void) = __atomic_load_n(&before_output, __ATOMIC_ACQUIRE);

	if (fn)
		fn();
}

void log_begin(void)
{
	flockfile(stderr);
	log_before_output();
}

void log_end(void)
{
	funlockfile(stderr);
}

/*
 * The line in @buf, whole, when it fits: its length, else 0.  Written in
 * one piece, it cannot be cut by the guest's console: on a terminal that
 * is stdout as well, and stdout's writes do not take stderr's lock.
 */
static size_t format_line(char *buf, size_t size, const char *tag, int err, const char *fmt,
			  va_list ap)
{
	size_t used;
	int n;

	n = snprintf(buf, size, "%s%s", LOG_PREFIX, tag);
	if (n < 0 || (size_t)n >= size)
		return 0;
	used = (size_t)n;
	n = vsnprintf(buf + used, size - used, fmt, ap);
	if (n < 0 || (size_t)n >= size - used)
		return 0;
	used += (size_t)n;
	if (err) {
		n = snprintf(buf + used, size - used, ": %s", strerror(err));
		if (n < 0 || (size_t)n >= size - used)
			return 0;
		used += (size_t)n;
	}
	if (used + 1 >= size)
		return 0;
	buf[used++] = '\n';
	return used;
}

/* One line: prefix, @tag, the message, and strerror(@err) when @err is not 0. */
static void log_line(FILE *f, const char *tag, int err, const char *fmt, va_list ap)
{
	char buf[2048];
	size_t len;
	va_list aq;

	va_copy(aq, ap);
	len = format_line(buf, sizeof(buf), tag, err, fmt, aq);
	va_end(aq);
	flockfile(f);
	if (f == stderr)
		log_before_output();
	if (len) {
		fwrite(buf, 1, len, f);
		funlockfile(f);
		return;
	}
	/* Longer than the buffer: in pieces, as it comes. */
	fputs(LOG_PREFIX, f);
	fputs(tag, f);
	vfprintf(f, fmt, ap);
	if (err)
		fprintf(f, ": %s", strerror(err));
	fputc('\n', f);
	funlockfile(f);
}

void log_at(FILE *f, const char *tag, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_line(f, tag, err, fmt, ap);
	va_end(ap);
}

void why_set(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

int why_errno(char *why, size_t len, int err, const char *fmt, ...)
{
	va_list ap;
	size_t used;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	used = strnlen(why, len);
	if (used + 1 < len)
		snprintf(why + used, len - used, ": %s", strerror(err));
	/* A caller that passes 0 still returns an error. */
	return err ? -err : -EIO;
}
