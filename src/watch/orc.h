/* orc.h: a Linux guest's stack from its ORC unwind tables (CONFIG_UNWINDER_ORC). */
#ifndef CSAN_WATCH_ORC_H
#define CSAN_WATCH_ORC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "csan/abi.h"
#include "watch/unwind.h"

/*
 * An x86-64 Linux kernel built with CONFIG_UNWINDER_ORC keeps no frame
 * pointers; it describes every instruction's frame instead in two
 * parallel tables that objtool writes: .orc_unwind_ip (each entry a
 * 32-bit offset from itself to the first instruction it covers) and
 * .orc_unwind (one 6-byte struct orc_entry per IP: how to find the
 * caller's stack pointer and frame pointer, and whether the frame is a
 * call, a full pt_regs or an iret frame).  An entry covers the code from
 * its IP up to the next entry's IP.
 */

/* The two layouts of struct orc_entry's flag bits Linux has used. */
enum orc_format {
	ORC_FORMAT_V1, /* up to Linux 6.3: type:2 (CALL, REGS, REGS_PARTIAL), end:1 */
	ORC_FORMAT_V2, /* with .orc_header (Linux 6.4+): type:3 (UNDEFINED,
			* END_OF_STACK, CALL, REGS, REGS_PARTIAL), signal:1 */
};

struct orc_table;

/*
 * orc_load - the ORC tables of the vmlinux at @path, read with libelf,
 * sorted by IP.  *@out is NULL (and 0 returned) when the ELF has no
 * .orc_unwind_ip section: a frame-pointer kernel or any other guest.
 * Returns 0, or -errno with the reason in @why (cannot open @path, the
 * two sections disagree in length, out of memory).
 */
int orc_load(const char *path, struct orc_table **out, char *why, size_t whylen);

/*
 * orc_table_new - a table from the raw section contents: @n entries of
 * .orc_unwind_ip (@ip_sec, loaded at guest address @ip_addr) and of
 * .orc_unwind (@orc_sec, 6 bytes each), in @fmt; IPs at or above
 * @text_end (0: no limit) are outside it.  For tests and for tables
 * found elsewhere than a vmlinux.  Returns 0, -EINVAL (@n is 0) or
 * -ENOMEM.
 */
int orc_table_new(const void *ip_sec, uint64_t ip_addr, const void *orc_sec, size_t n,
		  enum orc_format fmt, uint64_t text_end, struct orc_table **out);

/*
 * orc_table_from_ips - a table from @n absolute IPs (@ips, any order) and
 * their 6-byte entries (@entries), as a module's relocated .orc_unwind_ip
 * gives them; IPs at or above @text_end are outside it.  Returns 0,
 * -EINVAL or -ENOMEM.
 */
int orc_table_from_ips(const uint64_t *ips, const void *entries, size_t n, enum orc_format fmt,
		       uint64_t text_end, struct orc_table **out);

/* orc_table_format - the entry layout @t was read in. */
enum orc_format orc_table_format(const struct orc_table *t);

/* orc_free - release @t; NULL is a no-op. */
void orc_free(struct orc_table *t);

/*
 * orc_set_offset - the guest runs @t's code @offset bytes from the
 * addresses @t has (a kernel's KASLR offset): an IP is looked up that
 * much lower.  The code moved as one block, so the entries still hold.
 */
void orc_set_offset(struct orc_table *t, int64_t offset);

/* orc_entries - how many IPs @t describes. */
size_t orc_entries(const struct orc_table *t);

/* orc_covers - whether @t has an entry for the code at @ip. */
bool orc_covers(const struct orc_table *t, uint64_t ip);

/* How an ORC walk ended (struct orc_result.end). */
enum orc_end {
	ORC_END_STACK,	/* the end-of-stack mark: a task's or CPU's first frame */
	ORC_END_USER,	/* a pt_regs frame from user mode */
	ORC_END_FULL,	/* @max PCs found */
	ORC_END_NO_ORC, /* an IP without an entry (a module, generated code) */
	ORC_END_ERROR,	/* unreadable memory, a register ORC needs but lost, a bad entry */
};

struct orc_result {
	enum orc_end end;
	char why[128]; /* for ORC_END_NO_ORC and ORC_END_ERROR: what stopped it */
};

/*
 * More tables than one: for an IP the main table does not cover (a
 * module's code), the table that does, or NULL.  Called with the
 * unwinder's locks held: must not take the sym's lock.
 */
typedef const struct orc_table *(*orc_more_fn)(void *ctx, uint64_t ip);

/*
 * orc_unwind - the call stack of a vCPU stopped with @regs, as Linux's
 * own unwinder (arch/x86/kernel/unwind_orc.c) walks it: @pcs[0] is
 * regs->rip, each further PC the return address of a call frame or the
 * interrupted IP of a pt_regs frame (symbolize both as return
 * addresses, as the kernel's %pB does), at most @max in all.  Memory is
 * read through @read(@ctx, ...); IPs @t does not cover are looked up in
 * @more(@more_ctx, ip) when @more is not NULL.  @res (may be NULL) says
 * how it ended.
 * Returns the number of PCs (>= 1), or 0 when @t has no entry for
 * regs->rip (the caller should use another unwinder), or -EINVAL.
 */
int orc_unwind(const struct orc_table *t, const struct csan_regs *regs, unwind_read_fn read,
	       void *ctx, orc_more_fn more, void *more_ctx, uint64_t *pcs, unsigned max,
	       struct orc_result *res);

#endif /* CSAN_WATCH_ORC_H */
