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

/* One line: prefix, @tag, the message, and strerror(@err) when @err is not 0. */
static void log_line(FILE *f, const char *tag, int err, const char *fmt, va_list ap)
{
	flockfile(f);
	if (f == stderr)
		log_before_output();
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
