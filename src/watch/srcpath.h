/* srcpath.h: source paths as kernel developers read them: relative to the source root. */
#ifndef CSAN_WATCH_SRCPATH_H
#define CSAN_WATCH_SRCPATH_H

#include <stddef.h>

/*
 * DWARF names a source file relative to its unit's compilation
 * directory, which for an out-of-tree build is a build directory: the
 * bundled guest's frames would read ../../../src/guest/kernel/zoo.c.
 * Reports print them relative to the source root instead, as syzbot
 * prints kernel paths (kernel/kcsan/core.c).  The root is the directory
 * most compilation units share with their own compilation directory
 * (for a build in /t/build/src/guest of /t/src/guest/x.c: /t; for an
 * in-tree Linux build: the tree), unless the user names it.  A file
 * outside the root keeps its absolute path.
 */
struct srcpath;

/* srcpath_new - an empty path table with no root; NULL when out of memory. */
struct srcpath *srcpath_new(void);
void srcpath_free(struct srcpath *sp);

/*
 * srcpath_vote - count one compilation unit towards the root: its
 * compilation directory @comp_dir and its file @name (either may be NULL).
 */
void srcpath_vote(struct srcpath *sp, const char *comp_dir, const char *name);

/*
 * srcpath_defer_votes - take the votes only when the root is first needed
 * and none is named: @gather is called once then, with @ctx, and calls
 * srcpath_vote() or srcpath_set_root().  Walking every unit of a vmlinux
 * costs as much as the rest of opening its symbols, and a run that
 * reports nothing never needs the root.
 */
void srcpath_defer_votes(struct srcpath *sp, void (*gather)(void *ctx, struct srcpath *sp),
			 void *ctx);

/*
 * srcpath_set_root - use @dir as the root (--source-root), whatever the
 * votes say; NULL goes back to the votes.  Only before the first
 * srcpath_show(): shown paths are kept.  Returns 0 or -ENOMEM.
 */
int srcpath_set_root(struct srcpath *sp, const char *dir);

/* srcpath_root - the root in force (named or voted), or NULL when none. */
const char *srcpath_root(struct srcpath *sp);

/*
 * srcpath_show - the path to print for @file of a unit compiled in
 * @comp_dir, and in *@full (when not NULL) the full path.  Both stay
 * valid until srcpath_free().  Keyed by the two pointers, which must be
 * stable (DWARF strings are).  NULL for a NULL @file or out of memory.
 */
const char *srcpath_show(struct srcpath *sp, const char *comp_dir, const char *file,
			 const char **full);

/*
 * srcpath_join - @file as an absolute, lexically normalized path ("."
 * and ".." components folded, no symlinks followed: the files need not
 * exist here), taken relative to @dir when it is relative and @dir is
 * given.  Into @out of @outlen bytes.  Returns the length, or 0 when it
 * does not fit (@out then holds "").
 */
size_t srcpath_join(const char *dir, const char *file, char *out, size_t outlen);

#endif /* CSAN_WATCH_SRCPATH_H */
