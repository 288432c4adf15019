/* test-srcpath.c: source paths relative to the guest's source root. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "watch/srcpath.h"

/* CHECK_STR: two strings are equal (NULL equals only NULL). */
#define CHECK_STR(a, b)                                                                            \
	do {                                                                                       \
		const char *a_ = (a), *b_ = (b);                                                   \
		check_count++;                                                                     \
		if (a_ != b_ && (!a_ || !b_ || strcmp(a_, b_))) {                                  \
			check_failures++;                                                          \
			fprintf(stderr, "%s:%d: %s: \"%s\" != \"%s\"\n", __FILE__, __LINE__, #a,   \
				a_ ? a_ : "(null)", b_ ? b_ : "(null)");                           \
		}                                                                                  \
	} while (0)

static const char *join(const char *dir, const char *file)
{
	static char buf[256];

	srcpath_join(dir, file, buf, sizeof(buf));
	return buf;
}

static void test_join(void)
{
	CHECK_STR(join("/t/build/src/guest", "../../../src/guest/kernel/zoo.c"),
		  "/t/src/guest/kernel/zoo.c");
	CHECK_STR(join("/usr/src/linux", "kernel/kcsan/core.c"),
		  "/usr/src/linux/kernel/kcsan/core.c");
	CHECK_STR(join("/usr/src/linux", "./kernel//kcsan/./core.c"),
		  "/usr/src/linux/kernel/kcsan/core.c");
	/* An absolute name ignores the directory. */
	CHECK_STR(join("/t/build", "/home/me/my-race.c"), "/home/me/my-race.c");
	/* Never above the root. */
	CHECK_STR(join("/a", "../../../x.c"), "/x.c");
	CHECK_STR(join(NULL, "/a/b/../c"), "/a/c");
	{
		char small[8];

		CHECK_EQ_U64(srcpath_join("/long/directory", "file.c", small, sizeof(small)), 0);
		CHECK_STR(small, "");
	}
}

/* Paths are keyed by pointer, as DWARF's strings are: keep each string in one place. */
static const char bdir[] = "/t/build/src/guest";
static const char zoo[] = "../../../src/guest/kernel/zoo.c";
static const char abi[] = "../../../include/csan/abi.h";
static const char mine[] = "/home/me/scn/my-race.c";
static const char linux_dir[] = "/usr/src/linux";
static const char kcsan[] = "kernel/kcsan/kcsan_test.c";

static void test_bundled_guest(void)
{
	struct srcpath *sp = srcpath_new();
	const char *full = NULL;

	CHECK(sp != NULL);
	if (!sp)
		return;
	CHECK(srcpath_root(sp) == NULL);
	/* Each unit of an out-of-tree build votes for the tree it came from. */
	srcpath_vote(sp, bdir, "../../../src/guest/kernel/zoo.c");
	srcpath_vote(sp, bdir, "../../../src/guest/kernel/main.c");
	srcpath_vote(sp, bdir, "../../../src/guest/arch/entry.S");
	/* A user's scenario from elsewhere has only "/" in common: no vote. */
	srcpath_vote(sp, bdir, mine);
	srcpath_vote(sp, NULL, "x.c");
	CHECK_STR(srcpath_root(sp), "/t");
	CHECK_STR(srcpath_show(sp, bdir, zoo, &full), "src/guest/kernel/zoo.c");
	CHECK_STR(full, "/t/src/guest/kernel/zoo.c");
	CHECK_STR(srcpath_show(sp, bdir, abi, NULL), "include/csan/abi.h");
	/* Outside the root: the absolute path, in both. */
	CHECK_STR(srcpath_show(sp, bdir, mine, &full), "/home/me/scn/my-race.c");
	CHECK_STR(full, "/home/me/scn/my-race.c");
	/* Asked again: the same strings. */
	CHECK(srcpath_show(sp, bdir, zoo, NULL) == srcpath_show(sp, bdir, zoo, NULL));
	CHECK(srcpath_show(sp, bdir, NULL, &full) == NULL && full == NULL);
	srcpath_free(sp);
}

static void test_linux_and_override(void)
{
	struct srcpath *sp = srcpath_new();
	const char *full = NULL;

	if (!sp)
		return;
	/* An in-tree kernel build: the tree is the compilation directory. */
	srcpath_vote(sp, linux_dir, "kernel/kcsan/core.c");
	srcpath_vote(sp, linux_dir, "kernel/kcsan/kcsan_test.c");
	CHECK_STR(srcpath_root(sp), "/usr/src/linux");
	CHECK_EQ_U64(srcpath_set_root(sp, "/usr/src/linux/kernel/"), 0);
	CHECK_STR(srcpath_root(sp), "/usr/src/linux/kernel");
	CHECK_STR(srcpath_show(sp, linux_dir, kcsan, &full), "kcsan/kcsan_test.c");
	CHECK_STR(full, "/usr/src/linux/kernel/kcsan/kcsan_test.c");
	srcpath_free(sp);

	/* Relative directories (a build run with -fdebug-prefix-map=.): names as they are. */
	sp = srcpath_new();
	if (!sp)
		return;
	srcpath_vote(sp, ".", "tests/watch/symtest.c");
	CHECK(srcpath_root(sp) == NULL);
	CHECK_STR(srcpath_show(sp, ".", "tests/watch/symtest.c", &full), "tests/watch/symtest.c");
	srcpath_free(sp);
}

static unsigned gathered;

static void gather_linux(void *ctx, struct srcpath *sp)
{
	gathered++;
	srcpath_vote(sp, ctx, "kernel/kcsan/core.c");
}

/* Votes deferred: taken once, when the root is first needed, and not at all when named. */
static void test_deferred_votes(void)
{
	struct srcpath *sp = srcpath_new();

	if (!sp)
		return;
	gathered = 0;
	srcpath_defer_votes(sp, gather_linux, (void *)linux_dir);
	CHECK_EQ_U64(gathered, 0);
	CHECK_STR(srcpath_show(sp, linux_dir, kcsan, NULL), "kernel/kcsan/kcsan_test.c");
	CHECK_EQ_U64(gathered, 1);
	CHECK_STR(srcpath_root(sp), "/usr/src/linux");
	CHECK_EQ_U64(gathered, 1);
	srcpath_free(sp);

	sp = srcpath_new();
	if (!sp)
		return;
	gathered = 0;
	srcpath_defer_votes(sp, gather_linux, (void *)linux_dir);
	CHECK_EQ_U64(srcpath_set_root(sp, "/usr/src"), 0);
	CHECK_STR(srcpath_show(sp, linux_dir, kcsan, NULL), "linux/kernel/kcsan/kcsan_test.c");
	CHECK_EQ_U64(gathered, 0);
	srcpath_free(sp);
}

int main(void)
{
	test_join();
	test_bundled_guest();
	test_linux_and_override();
	test_deferred_votes();
	return check_exit_status("test-srcpath");
}
