/* srcpath.c: source paths relative to the guest's source root, and the full ones. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "watch/srcpath.h"

/* Distinct root candidates counted; a guest has one or a few. */
#define SRCPATH_MAX_CANDIDATES 16
#define SRCPATH_BUCKETS	       1024
#define SRCPATH_MAX	       4096

struct srcpath_entry {
	struct srcpath_entry *next;
	const char *comp_dir, *file; /* the key: DWARF's own pointers */
	char *full;
	const char *shown; /* into full */
};

struct srcpath {
	char *named; /* --source-root, normalized */
	struct {
		char *dir;
		unsigned long votes;
	} cand[SRCPATH_MAX_CANDIDATES];
	unsigned ncand;
	struct srcpath_entry *bucket[SRCPATH_BUCKETS];
	void (*gather)(void *ctx, struct srcpath *sp); /* votes not taken yet */
	void *gather_ctx;
};

struct srcpath *srcpath_new(void)
{
	return calloc(1, sizeof(struct srcpath));
}

void srcpath_free(struct srcpath *sp)
{
	unsigned i;

	if (!sp)
		return;
	for (i = 0; i < SRCPATH_BUCKETS; i++) {
		struct srcpath_entry *e = sp->bucket[i], *next;

		for (; e; e = next) {
			next = e->next;
			free(e->full);
			free(e);
		}
	}
	for (i = 0; i < sp->ncand; i++)
		free(sp->cand[i].dir);
	free(sp->named);
	free(sp);
}

/* Append component @c of @len bytes to the normalized path @out (at *@n). */
static int push_component(char *out, size_t outlen, size_t *n, const char *c, size_t len)
{
	if (len == 0 || (len == 1 && c[0] == '.'))
		return 0;
	if (len == 2 && c[0] == '.' && c[1] == '.') {
		/* Up one, but never above the root. */
		while (*n > 0 && out[*n - 1] != '/')
			(*n)--;
		if (*n > 0)
			(*n)--;
		return 0;
	}
	if (*n + 1 + len + 1 > outlen)
		return -1;
	out[(*n)++] = '/';
	memcpy(out + *n, c, len);
	*n += len;
	return 0;
}

static int push_path(char *out, size_t outlen, size_t *n, const char *p)
{
	while (*p) {
		const char *slash = strchr(p, '/');
		size_t len = slash ? (size_t)(slash - p) : strlen(p);

		if (push_component(out, outlen, n, p, len) < 0)
			return -1;
		p += len;
		while (*p == '/')
			p++;
	}
	return 0;
}

size_t srcpath_join(const char *dir, const char *file, char *out, size_t outlen)
{
	size_t n = 0;

	if (outlen < 2)
		return 0;
	out[0] = '\0';
	if (file[0] != '/' && dir && push_path(out, outlen, &n, dir) < 0)
		return out[0] = '\0', 0;
	if (push_path(out, outlen, &n, file) < 0)
		return out[0] = '\0', 0;
	if (n == 0)
		out[n++] = '/';
	out[n] = '\0';
	return n;
}

/* The longest directory both normalized absolute paths lie under (0: only "/"). */
static size_t common_dir(const char *a, const char *b)
{
	size_t i = 0, last = 0;

	for (; a[i] && a[i] == b[i]; i++)
		if (a[i] == '/')
			last = i;
	/* One is the other's directory: a = "/t", b = "/t/x" (or the same). */
	if ((!a[i] && (b[i] == '/' || !b[i])) || (!b[i] && a[i] == '/'))
		last = i;
	return last;
}

void srcpath_vote(struct srcpath *sp, const char *comp_dir, const char *name)
{
	char d[SRCPATH_MAX], f[SRCPATH_MAX];
	size_t len;
	unsigned i;

	if (!comp_dir || !name || comp_dir[0] != '/')
		return;
	if (!srcpath_join(NULL, comp_dir, d, sizeof(d)) ||
	    !srcpath_join(comp_dir, name, f, sizeof(f)))
		return;
	len = common_dir(d, f);
	/* Only "/" in common: a file from elsewhere (a user's scenario), no vote. */
	if (len == 0)
		return;
	d[len] = '\0';
	for (i = 0; i < sp->ncand; i++) {
		if (strcmp(sp->cand[i].dir, d) == 0) {
			sp->cand[i].votes++;
			return;
		}
	}
	if (sp->ncand < SRCPATH_MAX_CANDIDATES && (sp->cand[i].dir = strdup(d))) {
		sp->cand[i].votes = 1;
		sp->ncand++;
	}
}

int srcpath_set_root(struct srcpath *sp, const char *dir)
{
	char d[SRCPATH_MAX];

	free(sp->named);
	sp->named = NULL;
	if (!dir)
		return 0;
	if (!srcpath_join(NULL, dir, d, sizeof(d)) || !(sp->named = strdup(d)))
		return -ENOMEM;
	return 0;
}

void srcpath_defer_votes(struct srcpath *sp, void (*gather)(void *ctx, struct srcpath *sp),
			 void *ctx)
{
	sp->gather = gather;
	sp->gather_ctx = ctx;
}

const char *srcpath_root(struct srcpath *sp)
{
	unsigned i, best = 0;

	if (!sp->named && sp->gather) {
		void (*gather)(void *ctx, struct srcpath *sp) = sp->gather;

		sp->gather = NULL; /* once; the callback votes or names the root */
		gather(sp->gather_ctx, sp);
	}
	if (sp->named)
		return sp->named;
	if (!sp->ncand)
		return NULL;
	/* Ties go to the first seen: the first units are the kernel's own. */
	for (i = 1; i < sp->ncand; i++)
		if (sp->cand[i].votes > sp->cand[best].votes)
			best = i;
	return sp->cand[best].dir;
}

/* The part of @full under @root, or @full itself. */
static const char *under_root(const char *full, const char *root)
{
	size_t n = root ? strlen(root) : 0;

	if (n == 1 && root[0] == '/')
		return full + 1;
	if (n && strncmp(full, root, n) == 0 && full[n] == '/' && full[n + 1])
		return full + n + 1;
	return full;
}

const char *srcpath_show(struct srcpath *sp, const char *comp_dir, const char *file,
			 const char **full)
{
	uintptr_t h = ((uintptr_t)file * 0x9e3779b97f4a7c15ull) ^ (uintptr_t)comp_dir;
	struct srcpath_entry **head, *e;
	char buf[SRCPATH_MAX];

	if (full)
		*full = NULL;
	if (!file)
		return NULL;
	head = &sp->bucket[(h >> 7) % SRCPATH_BUCKETS];
	for (e = *head; e; e = e->next)
		if (e->file == file && e->comp_dir == comp_dir)
			goto found;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	/* A relative name with no directory to anchor it stays as it is. */
	if (file[0] != '/' && (!comp_dir || comp_dir[0] != '/'))
		e->full = strdup(file);
	else if (srcpath_join(comp_dir, file, buf, sizeof(buf)))
		e->full = strdup(buf);
	else
		e->full = strdup(file);
	if (!e->full) {
		free(e);
		return NULL;
	}
	e->comp_dir = comp_dir;
	e->file = file;
	e->shown = e->full[0] == '/' ? under_root(e->full, srcpath_root(sp)) : e->full;
	e->next = *head;
	*head = e;
found:
	if (full)
		*full = e->full;
	return e->shown;
}
