/* watch-test.h: what the src/watch unit tests share: the test ELF's path. */
#ifndef CSAN_TESTS_WATCH_TEST_H
#define CSAN_TESTS_WATCH_TEST_H

#include <stdio.h>
#include <stdlib.h>

/*
 * The checked-in test ELF: under $top_srcdir when make check runs the test
 * (AM_TESTS_ENVIRONMENT exports it), else relative to the current
 * directory, so a test also runs by hand from the top of the tree.
 */
static inline const char *symtest_path(void)
{
	static char path[4096];
	const char *top = getenv("top_srcdir");

	snprintf(path, sizeof(path), "%s/tests/watch/symtest.elf", top && *top ? top : ".");
	return path;
}

#endif
