/* vsnprintf.c: a small printf formatter (no floating point). */
#include <stdarg.h>

#include "kstring.h"
#include "printk.h"

struct out {
	char *buf;
	size_t size;
	size_t len; /* what the full output would take */
};

static void put(struct out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void pad(struct out *o, char c, int n)
{
	while (n-- > 0)
		put(o, c);
}

struct spec {
	bool left; /* '-' */
	bool zero; /* '0' */
	int width;
	int precision; /* -1: none */
};

static void put_str(struct out *o, const char *s, const struct spec *sp)
{
	size_t n, i;

	if (!s)
		s = "(null)";
	n = sp->precision >= 0 ? strnlen(s, (size_t)sp->precision) : strlen(s);
	if (!sp->left)
		pad(o, ' ', sp->width - (int)n);
	for (i = 0; i < n; i++)
		put(o, s[i]);
	if (sp->left)
		pad(o, ' ', sp->width - (int)n);
}

static void put_num(struct out *o, uint64_t v, unsigned int base, bool negative, bool upper,
		    const char *prefix, const struct spec *sp)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];
	int n = 0, extra = (negative ? 1 : 0) + (int)strlen(prefix);
	size_t start = o->len;

	do {
		tmp[n++] = digits[v % base];
		v /= base;
	} while (v);

	if (!sp->left && !sp->zero)
		pad(o, ' ', sp->width - n - extra);
	if (negative)
		put(o, '-');
	while (*prefix)
		put(o, *prefix++);
	if (!sp->left && sp->zero)
		pad(o, '0', sp->width - n - extra);
	while (n)
		put(o, tmp[--n]);
	if (sp->left)
		pad(o, ' ', sp->width - (int)(o->len - start));
}

static int parse_int(const char **fmt)
{
	int n = 0;

	while (**fmt >= '0' && **fmt <= '9')
		n = n * 10 + (*(*fmt)++ - '0');
	return n;
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = { .buf = buf, .size = size };

	for (; *fmt; fmt++) {
		struct spec sp = { .precision = -1 };
		int longs = 0;
		uint64_t u;
		int64_t s;

		if (*fmt != '%') {
			put(&o, *fmt);
			continue;
		}
		fmt++;
		for (;; fmt++) {
			if (*fmt == '-')
				sp.left = true;
			else if (*fmt == '0')
				sp.zero = true;
			else
				break;
		}
		if (*fmt == '*') {
			sp.width = va_arg(ap, int);
			fmt++;
		} else {
			sp.width = parse_int(&fmt);
		}
		if (*fmt == '.') {
			fmt++;
			if (*fmt == '*') {
				sp.precision = va_arg(ap, int);
				fmt++;
			} else {
				sp.precision = parse_int(&fmt);
			}
		}
		for (;; fmt++) {
			if (*fmt == 'l' || *fmt == 'z')
				longs++;
			else if (*fmt != 'h')
				break;
		}

		switch (*fmt) {
		case 'd':
		case 'i':
			s = longs ? va_arg(ap, int64_t) : va_arg(ap, int);
			u = s < 0 ? -(uint64_t)s : (uint64_t)s;
			put_num(&o, u, 10, s < 0, false, "", &sp);
			break;
		case 'u':
		case 'x':
		case 'X':
			u = longs ? va_arg(ap, uint64_t) : va_arg(ap, unsigned int);
			put_num(&o, u, *fmt == 'u' ? 10 : 16, false, *fmt == 'X', "", &sp);
			break;
		case 'p':
			u = (uintptr_t)va_arg(ap, void *);
			put_num(&o, u, 16, false, false, "0x", &sp);
			break;
		case 's': put_str(&o, va_arg(ap, const char *), &sp); break;
		case 'c': put(&o, (char)va_arg(ap, int)); break;
		case '%': put(&o, '%'); break;
		case '\0':
			fmt--; /* a lone '%' at the end: stop at the NUL */
			break;
		default:
			/* Unknown conversion: show it as written. */
			put(&o, '%');
			put(&o, *fmt);
			break;
		}
	}
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return (int)o.len;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
