/* linux_guest.h: the Linux guest profile: a plain PVH kernel on a small PC. */
#ifndef CSAN_VMM_LINUX_GUEST_H
#define CSAN_VMM_LINUX_GUEST_H

#include <stddef.h>

struct vm;
struct linux_watch;

/* Guest RAM without --memory: what the KCSAN KUnit kernel runs in under QEMU. */
#define LINUX_DEFAULT_MEMORY (512ull << 20)

/* The default command line before --append: the console on the 16550. */
#define LINUX_DEFAULT_CMDLINE "console=ttyS0"

/* Linux's panic() lines (kernel/panic.c): the first and the last. */
#define LINUX_PANIC_PREFIX "Kernel panic - not syncing"
#define LINUX_PANIC_END	   "---[ end Kernel panic - not syncing"
/* kernel_restart()'s line (kernel/reboot.c): a triple fault after it is the reboot. */
#define LINUX_RESTART "reboot: Restarting system"

/*
 * linux_console_line - one whole line of Linux's console (@len bytes, no
 * newline; a trailing '\r' and a printk time stamp are allowed), in console
 * order.  Notes a panic (the run ends with status 3 at panic()'s last line,
 * the text kept for the summary) and feeds the KTAP reader.  The one place
 * where the Linux console is read: a KCSAN report parser plugs in here.
 */
void linux_console_line(struct vm *vm, const char *line, size_t len);

/* linux_guest_watch - the KCSAN follower of hw mode (linux_watch.h), or NULL. */
struct linux_watch *linux_guest_watch(struct vm *vm);

#endif /* CSAN_VMM_LINUX_GUEST_H */
