/* sandbox.c: the system-call allow-list each vCPU thread puts itself under. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/kvm.h>
#include <seccomp.h>

#include "vmm/base/log.h"
#include "vmm/base/exit_status.h"
#include "vmm/kvm/sandbox.h"

/*
 * Why vCPU threads: once the guest runs, they are the threads that parse
 * what the guest controls (hypercall arguments, guest page tables and
 * stacks for unwinding, report records).  A bug there that a hostile guest
 * could exploit would run with the VMM's rights; under this filter such a
 * thread can still only do what serving exits needs.  The main thread and
 * the console and control threads stay unfiltered: they open files and
 * sockets on the user's behalf and do not serve the guest's exits.
 *
 * Only what a vCPU thread is seen to need after set-up is allowed, in
 * groups below.  Everything else - execve, fork and clone, sockets,
 * ptrace, process_vm_*, mount, kexec, bpf, perf_event_open, keyctl,
 * module loading, opening files for writing, making memory executable -
 * traps (sandbox_sigsys).
 */
static const int allowed_always[] = {
	/*
	 * Console and report output, the --report-json stream (its buffer
	 * is set up on first use: fstat), vm_end's eventfd, libdw reading
	 * debuginfo it opens lazily, glibc's fatal-error messages (writev).
	 */
	SCMP_SYS(read),
	SCMP_SYS(pread64),
	SCMP_SYS(write),
	SCMP_SYS(writev),
	SCMP_SYS(lseek),
	SCMP_SYS(close),
	SCMP_SYS(fstat),
	SCMP_SYS(newfstatat),
	/* --disk: the virtio-blk device reads and writes its image on the notifying vCPU. */
	SCMP_SYS(pwrite64),
	SCMP_SYS(fdatasync),
	/* malloc (a thread's first allocation creates its arena: sysinfo) and libelf's mappings. */
	SCMP_SYS(munmap),
	SCMP_SYS(madvise),
	SCMP_SYS(mremap),
	SCMP_SYS(brk),
	SCMP_SYS(sysinfo),
	SCMP_SYS(sched_getaffinity),
	/* Locks, condition variables and vcpu_run_on_all; the kick handler's return. */
	SCMP_SYS(futex),
	SCMP_SYS(sched_yield),
	SCMP_SYS(rt_sigprocmask),
	SCMP_SYS(rt_sigreturn),
	SCMP_SYS(restart_syscall),
	SCMP_SYS(getpid),
	SCMP_SYS(gettid),
	/* Time stamps: the vDSO calls the kernel where the clock source has no vDSO path. */
	SCMP_SYS(clock_gettime),
	SCMP_SYS(gettimeofday),
	SCMP_SYS(clock_nanosleep),
	SCMP_SYS(nanosleep),
	/*
	 * Leaving: the thread's own exit, and the process's (a fatal host
	 * error).  Sanitizer runtimes (--sandbox=on in such a build) drop the
	 * thread's alternate signal stack on the way out.
	 */
	SCMP_SYS(exit),
	SCMP_SYS(exit_group),
	SCMP_SYS(sigaltstack),
};

/*
 * The ioctls a vCPU thread makes on its own vCPU (and, in vcpu_run_on_all,
 * on one whose thread has stopped): the run, reading registers and
 * translating addresses for faults and unwinding, debug registers and
 * event re-injection in hardware-watchpoint mode; the one VM ioctl is the
 * UART raising its interrupt line.  TCGETS is stdio asking
 * whether a stream it starts to buffer is a terminal.  VM-wide and
 * /dev/kvm ioctls (creating vCPUs, mapping memory) are set-up only.
 */
static const unsigned long allowed_ioctls[] = {
	KVM_RUN,
	KVM_GET_REGS,
	KVM_SET_REGS, /* what a KCSAN trap replaced, done by the host (linux_watch.c) */
	KVM_GET_SREGS,
	KVM_TRANSLATE,
	KVM_GET_MSRS, /* MSR_LSTAR: the running kernel and its KASLR offset (sample/sample_setup.c) */
	KVM_SET_GUEST_DEBUG,
	KVM_GET_VCPU_EVENTS,
	KVM_SET_VCPU_EVENTS,
	KVM_GET_DEBUGREGS,
	KVM_SET_DEBUGREGS,
	KVM_IRQ_LINE, /* the UART's and virtio devices' interrupts (serial.c, virtio_mmio.c) */
	TCGETS,
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * System-call names for the SIGSYS handler, resolved by sandbox_prepare:
 * libseccomp's resolver allocates, which a signal handler must not do.
 * Offsets into one buffer, plus one (0: no name), so nothing stays
 * allocated.  Numbers at or above NAMED_SYSCALLS print without a name.
 */
#define NAMED_SYSCALLS 512
static char syscall_names[8192];
static unsigned short syscall_name_at[NAMED_SYSCALLS];
static bool prepared;

#ifndef SYS_SECCOMP
#define SYS_SECCOMP 1 /* si_code of a SECCOMP_RET_TRAP signal (asm-generic/siginfo.h) */
#endif

/* Async-signal-safe string building: append @s to @buf holding *@len bytes. */
static void msg_add(char *buf, size_t size, size_t *len, const char *s)
{
	while (*s && *len < size)
		buf[(*len)++] = *s++;
}

static void msg_add_uint(char *buf, size_t size, size_t *len, unsigned long v)
{
	char digits[24];
	int n = 0;

	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n && *len < size)
		buf[(*len)++] = digits[--n];
}

/*
 * Why trap rather than kill: SECCOMP_RET_KILL_PROCESS ends csan-vmm with
 * SIGSYS and nothing on stderr, leaving the user to guess which call and
 * with a status that is not csan-vmm's.  A refused call is a bug in the
 * allow-list (or an exploited vCPU thread): either way the run must not go
 * on, and the message says what to report.  This runs on the offending
 * thread with the filter still in force, so it only writes and exits, both
 * allowed.  Returning an errno instead would let a half-done report or
 * symbolization go on silently wrong.
 */
static void sandbox_sigsys(int sig, siginfo_t *info, void *uctx)
{
	char msg[256];
	size_t len = 0;
	int nr = info->si_syscall;

	(void)sig;
	(void)uctx;
	if (info->si_code != SYS_SECCOMP) {
		msg_add(msg, sizeof(msg), &len, LOG_PREFIX "stopped by SIGSYS from outside\n");
	} else {
		msg_add(msg, sizeof(msg), &len, LOG_PREFIX "vCPU thread made system call ");
		if (nr >= 0 && nr < NAMED_SYSCALLS && syscall_name_at[nr])
			msg_add(msg, sizeof(msg), &len, syscall_names + syscall_name_at[nr] - 1);
		else
			msg_add(msg, sizeof(msg), &len, "?");
		msg_add(msg, sizeof(msg), &len, " (nr ");
		msg_add_uint(msg, sizeof(msg), &len, (unsigned long)(unsigned)nr);
		msg_add(msg, sizeof(msg), &len,
			"), which the sandbox does not allow; please report this "
			"(--sandbox=off runs without it)\n");
	}
	if (write(STDERR_FILENO, msg, len) < 0) {
		/* Nothing left to tell the user with. */
	}
	_exit(EXIT_USAGE);
}

static void resolve_syscall_names(void)
{
	size_t used = 0;
	int nr;

	for (nr = 0; nr < NAMED_SYSCALLS; nr++) {
		char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
		size_t n = name ? strlen(name) + 1 : 0;

		/* Offsets must fit the table; a name that does not is printed as "?". */
		if (name && used + n <= sizeof(syscall_names) && used < USHRT_MAX) {
			memcpy(syscall_names + used, name, n);
			syscall_name_at[nr] = (unsigned short)(used + 1);
			used += n;
		}
		free(name);
	}
}

int sandbox_prepare(char *why, size_t whylen)
{
	struct sigaction sa = { .sa_sigaction = sandbox_sigsys, .sa_flags = SA_SIGINFO };

	if (prepared)
		return 0;
	resolve_syscall_names();
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSYS, &sa, NULL) < 0) {
		int r = why_errno(why, whylen, errno,
				  "cannot install the sandbox's SIGSYS handler");
		return r;
	}
	prepared = true;
	return 0;
}

/* The conditional rules: arguments that keep an allowed call within its use. */
static int add_argument_rules(scmp_filter_ctx ctx, const char **what)
{
	size_t i;
	int r;

	for (i = 0; i < ARRAY_SIZE(allowed_ioctls); i++) {
		*what = "the ioctl rule";
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1,
				     SCMP_A1(SCMP_CMP_EQ, allowed_ioctls[i]));
		if (r)
			return r;
	}
	/* Reading a file libdw looks for is fine; creating or changing one is not. */
	*what = "the openat rule";
	r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(openat), 1,
			     SCMP_A2(SCMP_CMP_MASKED_EQ, O_ACCMODE | O_CREAT | O_TRUNC, O_RDONLY));
	if (r)
		return r;
	/*
	 * libelf's elf_begin asks whether its descriptor is open
	 * (F_GETFD): hw mode opens a Linux module's .ko on the vCPU that
	 * trapped in it (src/watch/kmod_guest.c).  Only that query.
	 */
	*what = "the fcntl rule";
	r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(fcntl), 1,
			     SCMP_A1(SCMP_CMP_EQ, F_GETFD));
	if (r)
		return r;
	/* No new executable memory: malloc and libelf never need it. */
	*what = "the mmap rule";
	r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1,
			     SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	if (r)
		return r;
	*what = "the mprotect rule";
	r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 1,
			     SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	if (r)
		return r;
	/* The kick (vcpu_kick) and abort(): signals to csan-vmm's own threads only. */
	*what = "the tgkill rule";
	return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1,
				SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)getpid()));
}

int sandbox_enter(char *why, size_t whylen)
{
	scmp_filter_ctx ctx;
	const char *what;
	size_t i;
	int r;

	if (!prepared) {
		why_set(why, whylen, "internal error: sandbox_enter before sandbox_prepare");
		return -EINVAL;
	}
	ctx = seccomp_init(SCMP_ACT_TRAP);
	if (!ctx) {
		why_set(why, whylen, "seccomp_init failed: out of memory");
		return -ENOMEM;
	}
	/* A 32-bit or x32 call from a 64-bit thread is never ours: no message needed. */
	what = "the bad-architecture action";
	r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	for (i = 0; !r && i < ARRAY_SIZE(allowed_always); i++) {
		what = "adding an allowed system call";
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, allowed_always[i], 0);
	}
	if (!r)
		r = add_argument_rules(ctx, &what);
	if (!r) {
		what = "loading the filter";
		r = seccomp_load(ctx);
	}
	if (r)
		why_set(why, whylen,
			"seccomp: %s failed: %s; --sandbox=off runs without the sandbox", what,
			strerror(-r));
	seccomp_release(ctx);
	return r;
}
