/* cpio_writer.c: a newc cpio archive built in memory with libarchive, for the initramfs. */
#include "config.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vmm/workload/cpio_writer.h"

struct cpio {
	struct archive *a;
	struct archive_entry *e; /* reused for every entry */
	uint8_t *buf;		 /* what libarchive wrote so far */
	size_t len, cap;
	bool oom;
	void *paths; /* tsearch tree of the guest paths written */
	unsigned ino;
};

/* libarchive's write callback: append to the growing buffer. */
static la_ssize_t mem_write(struct archive *a, void *ctx, const void *data, size_t n)
{
	struct cpio *c = ctx;

	(void)a;
	if (c->len + n > c->cap) {
		size_t cap = c->cap ? c->cap : 1u << 20;
		uint8_t *b;

		while (cap < c->len + n)
			cap *= 2;
		b = realloc(c->buf, cap);
		if (!b) {
			c->oom = true;
			return -1;
		}
		c->buf = b;
		c->cap = cap;
	}
	memcpy(c->buf + c->len, data, n);
	c->len += n;
	return (la_ssize_t)n;
}

struct cpio *cpio_new(void)
{
	struct cpio *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->a = archive_write_new();
	c->e = archive_entry_new();
	if (!c->a || !c->e || archive_write_set_format_cpio_newc(c->a) != ARCHIVE_OK ||
	    archive_write_add_filter_none(c->a) != ARCHIVE_OK ||
	    /* No padding to a block: the caller appends the bytes to another archive. */
	    archive_write_set_bytes_in_last_block(c->a, 1) != ARCHIVE_OK ||
	    archive_write_open2(c->a, c, NULL, mem_write, NULL, NULL) != ARCHIVE_OK) {
		cpio_free(c);
		return NULL;
	}
	return c;
}

void cpio_free(struct cpio *c)
{
	if (!c)
		return;
	if (c->a)
		archive_write_free(c->a);
	if (c->e)
		archive_entry_free(c->e);
	tdestroy(c->paths, free);
	free(c->buf);
	free(c);
}

int cpio_finish(struct cpio *c, uint8_t **data, size_t *len, char *why, size_t whylen)
{
	int rc = 0;

	if (archive_write_close(c->a) != ARCHIVE_OK || c->oom) {
		snprintf(why, whylen, "the initramfs: %s",
			 c->oom ? "out of memory" : archive_error_string(c->a));
		rc = c->oom ? -ENOMEM : -EIO;
	} else {
		*data = c->buf;
		*len = c->len;
		c->buf = NULL;
	}
	cpio_free(c);
	return rc;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

bool cpio_has(const struct cpio *c, const char *gpath)
{
	return tfind(gpath, &c->paths, by_name) != NULL;
}

/* Remember @gpath; -ENOMEM when it cannot be. */
static int remember(struct cpio *c, const char *gpath)
{
	char *k = strdup(gpath);
	char **found;

	if (!k)
		return -ENOMEM;
	found = tsearch(k, &c->paths, by_name);
	if (!found) {
		free(k);
		return -ENOMEM;
	}
	if (*found != k)
		free(k); /* there already: a file written again, later wins in the kernel */
	return 0;
}

static int write_failed(struct cpio *c, const char *gpath, char *why, size_t whylen)
{
	snprintf(why, whylen, "the initramfs: writing %s: %s", gpath,
		 c->oom ? "out of memory" : archive_error_string(c->a));
	return c->oom ? -ENOMEM : -EIO;
}

/*
 * Write the header of the entry in c->e at @gpath (the archive stores it
 * without the leading '/', as the kernel's own gen_init_cpio does not
 * need but cpio -t shows better), after its parent directories.
 */
static int put_header(struct cpio *c, const char *gpath, char *why, size_t whylen)
{
	char parent[4096];
	char *slash;
	int rc;

	snprintf(parent, sizeof(parent), "%s", gpath);
	slash = strrchr(parent, '/');
	if (slash && slash != parent) {
		*slash = '\0';
		if (!cpio_has(c, parent)) {
			/* c->e is in use: the parents get an entry of their own. */
			struct archive_entry *saved = c->e;

			c->e = archive_entry_new();
			if (!c->e) {
				c->e = saved;
				return -ENOMEM;
			}
			rc = cpio_dir(c, parent, 0755, why, whylen);
			archive_entry_free(c->e);
			c->e = saved;
			if (rc)
				return rc;
		}
	}
	archive_entry_set_pathname(c->e, gpath[0] == '/' && gpath[1] ? gpath + 1 : ".");
	archive_entry_set_uid(c->e, 0);
	archive_entry_set_gid(c->e, 0);
	archive_entry_set_uname(c->e, NULL);
	archive_entry_set_gname(c->e, NULL);
	archive_entry_set_nlink(c->e, archive_entry_filetype(c->e) == AE_IFDIR ? 2 : 1);
	archive_entry_set_ino(c->e, ++c->ino);
	if (!archive_entry_size_is_set(c->e)) /* newc wants one: directories and nodes have none */
		archive_entry_set_size(c->e, 0);
	if (archive_write_header(c->a, c->e) != ARCHIVE_OK)
		return write_failed(c, gpath, why, whylen);
	if (remember(c, gpath)) {
		snprintf(why, whylen, "the initramfs: out of memory");
		return -ENOMEM;
	}
	return 0;
}

int cpio_dir(struct cpio *c, const char *gpath, mode_t mode, char *why, size_t whylen)
{
	if (cpio_has(c, gpath) || !strcmp(gpath, "/"))
		return 0;
	archive_entry_clear(c->e);
	archive_entry_set_filetype(c->e, AE_IFDIR);
	archive_entry_set_perm(c->e, mode & 07777);
	archive_entry_set_mtime(c->e, time(NULL), 0);
	return put_header(c, gpath, why, whylen);
}

int cpio_bytes(struct cpio *c, const char *gpath, mode_t mode, const void *data, size_t len,
	       char *why, size_t whylen)
{
	int rc;

	archive_entry_clear(c->e);
	archive_entry_set_filetype(c->e, AE_IFREG);
	archive_entry_set_perm(c->e, mode & 07777);
	archive_entry_set_size(c->e, (la_int64_t)len);
	archive_entry_set_mtime(c->e, time(NULL), 0);
	rc = put_header(c, gpath, why, whylen);
	if (!rc && len && archive_write_data(c->a, data, len) != (la_ssize_t)len)
		rc = write_failed(c, gpath, why, whylen);
	return rc;
}

int cpio_node(struct cpio *c, const char *gpath, mode_t mode, dev_t dev, char *why, size_t whylen)
{
	archive_entry_clear(c->e);
	archive_entry_set_filetype(c->e, mode & S_IFMT);
	archive_entry_set_perm(c->e, mode & 07777);
	archive_entry_set_rdev(c->e, dev);
	archive_entry_set_mtime(c->e, time(NULL), 0);
	return put_header(c, gpath, why, whylen);
}

/* Copy the file open on @fd into the entry just written; -errno. */
static int copy_data(struct cpio *c, int fd, const char *hpath, const char *gpath, char *why,
		     size_t whylen)
{
	char buf[1 << 16];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (archive_write_data(c->a, buf, (size_t)n) != n)
			return write_failed(c, gpath, why, whylen);
	if (n < 0) {
		snprintf(why, whylen, "%s: %s", hpath, strerror(errno));
		return -errno;
	}
	return 0;
}

int cpio_host_file(struct cpio *c, const char *hpath, const char *gpath, char *why, size_t whylen)
{
	struct stat st;
	int fd, rc;

	fd = open(hpath, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		rc = -errno;
		snprintf(why, whylen, "%s: %s", hpath, strerror(errno));
		if (fd >= 0)
			close(fd);
		return rc;
	}
	archive_entry_clear(c->e);
	archive_entry_copy_stat(c->e, &st);
	rc = S_ISREG(st.st_mode) ? put_header(c, gpath, why, whylen) : -EINVAL;
	if (rc == -EINVAL)
		snprintf(why, whylen, "%s is not a regular file", hpath);
	if (!rc)
		rc = copy_data(c, fd, hpath, gpath, why, whylen);
	close(fd);
	return rc;
}

/* The guest path of @src, a path below the tree's root @hroot, at @groot. */
static int tree_guest_path(const char *src, const char *hroot, const char *groot, char *out,
			   size_t outlen)
{
	size_t n = strlen(hroot);
	const char *rel = src + n;

	if (strncmp(src, hroot, n))
		return -EINVAL;
	while (*rel == '/')
		rel++;
	if (!*rel)
		snprintf(out, outlen, "%s", groot);
	else if (!strcmp(groot, "/"))
		snprintf(out, outlen, "/%s", rel);
	else
		snprintf(out, outlen, "%s/%s", groot, rel);
	return strlen(out) + 1 >= outlen ? -ENAMETOOLONG : 0;
}

/* One entry of a tree walk: header, then the data from the disk reader. */
static int tree_entry(struct cpio *c, struct archive *disk, struct archive_entry *de,
		      const char *gpath, char *why, size_t whylen)
{
	struct archive_entry *saved = c->e;
	const void *blk;
	size_t size;
	la_int64_t off;
	int r, rc;

	/* Sockets mean nothing unpacked; the root keeps its own mode. */
	if (archive_entry_filetype(de) == AE_IFSOCK || !strcmp(gpath, "/"))
		return 0;
	if (archive_entry_filetype(de) == AE_IFDIR && cpio_has(c, gpath))
		return 0;
	c->e = de;
	rc = put_header(c, gpath, why, whylen);
	c->e = saved;
	if (rc || archive_entry_filetype(de) != AE_IFREG)
		return rc;
	while ((r = archive_read_data_block(disk, &blk, &size, &off)) == ARCHIVE_OK)
		if (size && archive_write_data(c->a, blk, size) != (la_ssize_t)size)
			return write_failed(c, gpath, why, whylen);
	if (r != ARCHIVE_EOF) {
		snprintf(why, whylen, "%s: %s", archive_entry_sourcepath(de),
			 archive_error_string(disk));
		return -EIO;
	}
	return 0;
}

int cpio_host_tree(struct cpio *c, const char *hpath, const char *gpath,
		   int (*on_file)(void *ctx, const char *hpath, const char *gpath, char *why,
				  size_t whylen),
		   void *ctx, char *why, size_t whylen)
{
	struct archive *disk = archive_read_disk_new();
	struct archive_entry *de = archive_entry_new();
	char g[4096];
	const char *src;
	int r, rc = 0;

	if (!disk || !de) {
		snprintf(why, whylen, "the initramfs: out of memory");
		rc = -ENOMEM;
		goto out;
	}
	archive_read_disk_set_symlink_hybrid(disk);
	archive_read_disk_set_behavior(disk, ARCHIVE_READDISK_NO_XATTR | ARCHIVE_READDISK_NO_ACL |
						     ARCHIVE_READDISK_NO_FFLAGS |
						     ARCHIVE_READDISK_NO_SPARSE);
	if (archive_read_disk_open(disk, hpath) != ARCHIVE_OK) {
		snprintf(why, whylen, "%s: %s", hpath, archive_error_string(disk));
		rc = -EIO;
		goto out;
	}
	while ((r = archive_read_next_header2(disk, de)) == ARCHIVE_OK) {
		archive_read_disk_descend(disk);
		src = archive_entry_sourcepath(de);
		if (!src || tree_guest_path(src, hpath, gpath, g, sizeof(g))) {
			snprintf(why, whylen, "%s: a path below it is too long", hpath);
			rc = -ENAMETOOLONG;
			goto out;
		}
		rc = tree_entry(c, disk, de, g, why, whylen);
		if (!rc && on_file && archive_entry_filetype(de) == AE_IFREG)
			rc = on_file(ctx, src, g, why, whylen);
		if (rc)
			goto out;
	}
	if (r != ARCHIVE_EOF) {
		snprintf(why, whylen, "%s: %s", hpath, archive_error_string(disk));
		rc = -EIO;
	}
out:
	if (disk)
		archive_read_free(disk);
	if (de)
		archive_entry_free(de);
	return rc;
}
