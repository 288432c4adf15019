/* string.c: memory and string functions (the compiler calls the mem* ones). */
#include "compiler.h"
#include "kstring.h"

/*
 * The mem* functions use the string instructions: short code, and one
 * instruction per byte for an instruction emulator instead of a loop's
 * four.  Plain C loops here could also be turned back into calls to
 * these very functions by the optimizer.
 */
void *memcpy(void *dst, const void *src, size_t n)
{
	void *d = dst;

	__asm__ __volatile__("rep movsb" : "+D"(d), "+S"(src), "+c"(n)::"memory");
	return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
	const char *s = src;
	char *d = dst;

	if (d <= s || d >= s + n)
		return memcpy(dst, src, n);
	/* Overlapping with dst above src: copy backwards. */
	d += n - 1;
	s += n - 1;
	__asm__ __volatile__("std; rep movsb; cld" : "+D"(d), "+S"(s), "+c"(n)::"memory");
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	void *d = dst;

	__asm__ __volatile__("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

size_t strlen(const char *s)
{
	const char *p = s;

	while (*p)
		p++;
	return (size_t)(p - s);
}

size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		if (!*a)
			break;
	}
	return 0;
}

size_t strlcpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);

	if (size) {
		size_t n = len < size - 1 ? len : size - 1;

		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}
