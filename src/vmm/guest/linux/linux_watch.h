/* linux_watch.h: hw mode for a stock Linux KCSAN: its watchpoints followed from the host. */
#ifndef CSAN_VMM_LINUX_WATCH_H
#define CSAN_VMM_LINUX_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "csan/abi.h"

struct vm;
struct linux_watch;

/*
 * linux_watch_start - find KCSAN's watchpoint set-up in the vmlinux
 * (kcsan_setup_watchpoint), plant the port-I/O traps that tell the host
 * when a watchpoint starts and ends (trap_plan.h), and give the debug
 * register engine a view of Linux (task or interrupt, data_race()).
 * Call before the vCPUs run, with vm->sym open.  Returns 0 with the state
 * in *@out, or a negative errno with what the user can do in @why: no
 * KCSAN in the kernel, no symbols, a layout the traps cannot take.
 */
int linux_watch_start(struct vm *vm, struct linux_watch **out, char *why, size_t whylen);

/*
 * linux_watch_console_report - a KCSAN report Linux printed, as a record
 * @r: when a host watch of the same address is live or just ended with a
 * hit, the two become one report seen by both (held until the watch ends,
 * or merged now) and this returns true: the caller must not submit @r.
 * False: submit it as it is.
 */
bool linux_watch_console_report(struct vm *vm, struct linux_watch *lw,
				const struct csan_hc_report *r);

/*
 * linux_watch_tick - timed work on the supervising thread: submit host
 * reports whose wait for Linux's own is over.  Returns the milliseconds
 * until the next call (-1 for @lw NULL).
 */
int linux_watch_tick(struct vm *vm, struct linux_watch *lw);

/* linux_watch_flush - submit every held or pending report (the run ended). */
void linux_watch_flush(struct vm *vm, struct linux_watch *lw);

/* linux_watch_print_stats - one line of what following KCSAN cost and found. */
void linux_watch_print_stats(struct linux_watch *lw, FILE *f);

/* linux_watch_free - release @lw (NULL is a no-op); the VM is stopped. */
void linux_watch_free(struct linux_watch *lw);

#endif /* CSAN_VMM_LINUX_WATCH_H */
