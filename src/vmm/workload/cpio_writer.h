/* cpio_writer.h: a newc cpio archive built in memory with libarchive, for the initramfs. */
#ifndef CSAN_VMM_CPIO_WRITER_H
#define CSAN_VMM_CPIO_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The archive being written, and every guest path it holds (so parent
 * directories are written once and a library two executables need goes
 * in once).  Every entry is owned by root, has one link and an inode
 * number of its own: the kernel's unpacker treats entries that share an
 * inode as hard links, and host uids mean nothing in the guest.
 */
struct cpio;

/* cpio_new - an empty archive; NULL when out of memory. */
struct cpio *cpio_new(void);

/*
 * cpio_finish - write the trailer and hand over the bytes in @data
 * (malloc'd, the caller frees) and @len; the archive is freed either
 * way.  Returns 0, or -EIO / -ENOMEM with a message in @why.
 */
int cpio_finish(struct cpio *c, uint8_t **data, size_t *len, char *why, size_t whylen);

/* cpio_free - drop an unfinished archive; NULL is a no-op. */
void cpio_free(struct cpio *c);

/* cpio_has - whether @gpath (absolute, normalised) is in the archive already. */
bool cpio_has(const struct cpio *c, const char *gpath);

/*
 * cpio_dir - directory @gpath with @mode (permission bits), and its
 * parents (0755) first; nothing when it is there already.
 * Returns 0 or -errno with a message in @why (so do the functions below).
 */
int cpio_dir(struct cpio *c, const char *gpath, mode_t mode, char *why, size_t whylen);

/* cpio_bytes - regular file @gpath with @mode holding @len bytes at @data. */
int cpio_bytes(struct cpio *c, const char *gpath, mode_t mode, const void *data, size_t len,
	       char *why, size_t whylen);

/* cpio_node - character or block device (@mode's type) @gpath, device @dev. */
int cpio_node(struct cpio *c, const char *gpath, mode_t mode, dev_t dev, char *why, size_t whylen);

/*
 * cpio_host_file - the host file @hpath (symbolic links followed) as the
 * regular file @gpath, its permission bits kept.
 */
int cpio_host_file(struct cpio *c, const char *hpath, const char *gpath, char *why, size_t whylen);

/*
 * cpio_host_tree - @hpath at @gpath: a file, or a directory with
 * everything below it, read with libarchive's disk reader.  @hpath itself
 * is followed when it is a symbolic link; links below it stay links.
 * Modes and times are kept; sockets are left out.  @on_file, when not
 * NULL, is called with each regular file's host and guest path (the
 * caller looks for ELF executables there).
 */
int cpio_host_tree(struct cpio *c, const char *hpath, const char *gpath,
		   int (*on_file)(void *ctx, const char *hpath, const char *gpath, char *why,
				  size_t whylen),
		   void *ctx, char *why, size_t whylen);

#endif /* CSAN_VMM_CPIO_WRITER_H */
