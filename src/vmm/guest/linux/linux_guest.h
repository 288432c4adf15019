/* linux_guest.h: the Linux guest profile: a plain PVH kernel on a small PC. */
#ifndef CSAN_VMM_LINUX_GUEST_H
#define CSAN_VMM_LINUX_GUEST_H

#include <stddef.h>

#include "vmm/dev/serial.h"
#include "vmm/kvm/vm.h"

struct vm;
struct linux_watch;

/* Guest RAM without --memory: what the KCSAN KUnit kernel runs in under QEMU. */
#define LINUX_DEFAULT_MEMORY (512ull << 20)

/* The default command line before --append: the console on the 16550. */
#define LINUX_NOKASLR	      "nokaslr"
#define LINUX_CONSOLE	      "console=ttyS0"
#define LINUX_DEFAULT_CMDLINE LINUX_CONSOLE " " LINUX_NOKASLR

/* Linux's panic() lines (kernel/panic.c): the first and the last. */
#define LINUX_PANIC_PREFIX "Kernel panic - not syncing"
/* init/initramfs.c's words when it cannot unpack an initramfs (--initrd, --run). */
#define LINUX_INITRAMFS_FAILED "Initramfs unpacking failed"
#define LINUX_PANIC_END	   "---[ end Kernel panic - not syncing"
/* kernel_restart()'s line (kernel/reboot.c): a triple fault after it is the reboot. */
#define LINUX_RESTART "reboot: Restarting system"

/*
 * The console line in place of a KCSAN block that csan-vmm printed itself
 * on stderr: the report's number in console order and Linux's title after
 * "BUG: KCSAN: " (which the note leaves out, so that a search for KCSAN's
 * blocks on stdout finds none of them).
 */
#define LINUX_REPORT_NOTE "[csan-vmm: KCSAN report #%u printed on stderr: %s]"

/*
 * linux_state_attach - the profile's state on @vm (what it reads off the
 * console, its PC devices' state), without KVM: linux_setup's first step,
 * and how a test without /dev/kvm gets a VM that reads a Linux console.
 * Released by the profile's teardown.  Returns 0, or -ENOMEM with a
 * message in @why.
 */
int linux_state_attach(struct vm *vm, char *why, size_t whylen);

/*
 * linux_console_line - one whole line of Linux's console (@len bytes, no
 * newline; a trailing '\r' and a printk time stamp are allowed), in console
 * order.  Notes a panic (the run ends with status 3 at panic()'s last line,
 * the text kept for the summary), feeds the KTAP reader and the KCSAN
 * report parser.  The one place where the Linux console is read.  Returns
 * what the console does with the line: a KCSAN report's block is held and,
 * once the report log printed the report (a vmlinux symbolizes it),
 * dropped for one LINUX_REPORT_NOTE line written into @note (@notelen
 * bytes; NULL when no console asks); everything else is shown.
 */
enum console_verdict linux_console_line(struct vm *vm, const char *line, size_t len, char *note,
					size_t notelen);

/*
 * The head of the profile's state (vm->profile_state): what the KCSAN
 * follower (linux_watch.c) reads, without calling back into this file.
 */
struct linux_state_head {
	struct linux_watch *watch; /* atomic: set once hw mode is prepared */
};

/* linux_guest_watch - the KCSAN follower of hw mode (linux_watch.h), or NULL. */
static inline struct linux_watch *linux_guest_watch(struct vm *vm)
{
	struct linux_state_head *h = vm->profile_state;

	return h ? __atomic_load_n(&h->watch, __ATOMIC_ACQUIRE) : NULL;
}

#endif /* CSAN_VMM_LINUX_GUEST_H */
