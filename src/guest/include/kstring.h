/* kstring.h: the few string and memory functions the guest needs. */
#ifndef GUEST_KSTRING_H
#define GUEST_KSTRING_H

#include <stddef.h>

/* The compiler may emit calls to the first four for struct copies. */
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);

/* Copies at most size-1 bytes and always terminates; returns strlen(src). */
size_t strlcpy(char *dst, const char *src, size_t size);

#endif /* GUEST_KSTRING_H */
