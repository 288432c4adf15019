/* console_input.c: the host terminal's keys: Ctrl-a escapes read on a thread. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <termios.h>
#include <unistd.h>

#include "vmm/base/log.h"
#include "vmm/console/console_input.h"
#include "vmm/dev/serial.h"
#include "vmm/console/escape.h"
#include "vmm/kvm/vm.h"

struct console_input {
	struct vm *vm;
	const struct console_actions *actions;
	int fd;
	int wake_fd; /* eventfd: console_input_stop asks the thread to leave */
	pthread_t thread;
	struct escape_state esc;
	bool raw;	   /* fd is a terminal we put in raw-ish mode */
	bool told_dropped; /* said once that typed keys do not reach the guest */
};

/*
 * The terminal's settings before we changed them.  Static, because the
 * signal handlers and the atexit hook that put them back cannot be handed
 * a pointer; one terminal per process is all there is anyway.
 */
static struct termios tty_saved;
static int tty_fd = -1;
static volatile sig_atomic_t tty_changed;

/* Signals that end the process while the terminal may be raw. */
static const int fatal_signals[] = { SIGHUP,  SIGINT, SIGTERM, SIGQUIT, SIGABRT,
				     SIGSEGV, SIGBUS, SIGFPE,  SIGILL };
static struct sigaction fatal_saved[sizeof(fatal_signals) / sizeof(fatal_signals[0])];

/* Async-signal-safe: tcsetattr is on POSIX's list. */
static void tty_restore(void)
{
	if (tty_changed) {
		tcsetattr(tty_fd, TCSAFLUSH, &tty_saved);
		tty_changed = 0;
	}
}

/* SA_RESETHAND made the default action current: re-raising ends us as it would have. */
static void tty_restore_and_die(int sig)
{
	tty_restore();
	raise(sig);
}

static void tty_hooks_install(void)
{
	static bool atexit_done;
	struct sigaction sa = { .sa_handler = tty_restore_and_die, .sa_flags = SA_RESETHAND };
	size_t i;

	if (!atexit_done && atexit(tty_restore) == 0)
		atexit_done = true;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
		sigaction(fatal_signals[i], &sa, &fatal_saved[i]);
}

static void tty_hooks_remove(void)
{
	size_t i;

	for (i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
		sigaction(fatal_signals[i], &fatal_saved[i], NULL);
}

/*
 * Raw-ish: keys arrive one by one without echo or line editing, but ISIG
 * stays so Ctrl-C still stops the run the orderly way (SIGINT) and OPOST
 * stays so our "\n" still starts a new line.  Ctrl-Z is disabled: a
 * stopped csan-vmm would come back with the shell's settings, not ours.
 */
static int tty_make_raw(int fd, char *why, size_t whylen)
{
	struct termios t;

	if (tcgetattr(fd, &tty_saved) < 0) {
		return why_errno(why, whylen, errno,
				 "--console-escapes: cannot read the terminal's settings");
	}
	t = tty_saved;
	t.c_lflag &= ~(tcflag_t)(ICANON | ECHO | ECHONL | IEXTEN);
	t.c_iflag &= ~(tcflag_t)(IXON | ICRNL | INLCR | IGNCR | ISTRIP);
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	t.c_cc[VSUSP] = _POSIX_VDISABLE;
	tty_fd = fd;
	tty_hooks_install();
	tty_changed = 1;
	if (tcsetattr(fd, TCSANOW, &t) < 0) {
		int e = errno;

		tty_changed = 0;
		tty_hooks_remove();
		why_set(why, whylen, "--console-escapes: cannot set the terminal's mode: %s",
			strerror(e));
		return -e;
	}
	return 0;
}

int console_tty_make_raw(int fd, char *why, size_t whylen)
{
	return tty_make_raw(fd, why, whylen);
}

void console_tty_put_back(void)
{
	if (!tty_changed)
		return;
	tty_restore();
	tty_hooks_remove();
}

static void do_watch_toggle(struct console_input *ci)
{
	char why[512];

	const struct console_actions *a = ci->actions;

	if (a->toggle_watch(ci->vm, why, sizeof(why)))
		log_error("watch mode stays %s: %s", a->watch_name(ci->vm), why);
	else
		log_error("watch mode: %s", a->watch_name(ci->vm));
}

static void do_escape(struct console_input *ci, enum escape_action a, uint8_t input)
{
	switch (a) {
	case ESCAPE_NONE: break;
	case ESCAPE_INPUT:
		/* The UART takes it where a guest wired its interrupt (Linux). */
		if (serial_receive(ci->vm->serial, &input, 1))
			break;
		if (!ci->told_dropped)
			log_error("keys typed here do not reach the guest (its UART takes no "
				  "input, or is full); Ctrl-a h lists the escape keys");
		ci->told_dropped = true;
		break;
	case ESCAPE_HELP: escape_help(stderr); break;
	case ESCAPE_WATCH: do_watch_toggle(ci); break;
	case ESCAPE_STATS:
		if (ci->actions->print_stats(ci->vm, stderr))
			log_error("no counters yet: the guest runtime has not attached its control "
				  "block");
		break;
	case ESCAPE_QUIT:
		log_error("quit (Ctrl-a x)");
		vm_end(ci->vm, VM_END_QUIT, 0, 0);
		break;
	case ESCAPE_UNKNOWN: log_error("unknown escape key; Ctrl-a h lists them"); break;
	}
}

static void *console_thread(void *arg)
{
	struct console_input *ci = arg;
	struct pollfd pfd[2] = { { .fd = ci->wake_fd, .events = POLLIN },
				 { .fd = ci->fd, .events = POLLIN } };
	uint8_t buf[64], input;
	ssize_t n, i;

	pthread_setname_np(pthread_self(), "csan-console");
	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return NULL;
		}
		if (pfd[0].revents)
			return NULL;
		n = read(ci->fd, buf, sizeof(buf));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return NULL; /* end of input: the run goes on without escapes */
		for (i = 0; i < n; i++)
			do_escape(ci, escape_feed(&ci->esc, buf[i], &input), input);
	}
}

bool console_is_our_tty(int fd)
{
	return isatty(fd) && tcgetpgrp(fd) == getpgrp();
}

int console_input_start(struct vm *vm, int fd, enum console_escapes mode,
			const struct console_actions *actions, struct console_input **out,
			char *why, size_t whylen)
{
	struct console_input *ci;
	sigset_t all, old;
	int rc;

	*out = NULL;
	if (mode == CONSOLE_ESCAPES_OFF ||
	    (mode == CONSOLE_ESCAPES_AUTO && !console_is_our_tty(fd)))
		return 0;
	if (isatty(fd) && tcgetpgrp(fd) >= 0 && tcgetpgrp(fd) != getpgrp()) {
		/*
		 * Touching our controlling terminal from the background would stop
		 * us (SIGTTOU/SIGTTIN).  A terminal that is not our controlling
		 * one (tcgetpgrp fails: the emulated host hands its serial port to
		 * an inner csan-vmm this way) has no job control to fear.
		 */
		log_warn("--console-escapes=on: the terminal belongs to another process group "
			 "(csan-vmm runs in the background); escape keys are off");
		return 0;
	}
	ci = calloc(1, sizeof(*ci));
	if (!ci) {
		why_set(why, whylen, "out of memory");
		return -ENOMEM;
	}
	ci->vm = vm;
	ci->actions = actions;
	ci->fd = fd;
	ci->wake_fd = eventfd(0, EFD_CLOEXEC);
	if (ci->wake_fd < 0) {
		rc = why_errno(why, whylen, errno, "--console-escapes: eventfd failed");
		free(ci);
		return rc;
	}
	rc = isatty(fd) ? tty_make_raw(fd, why, whylen) : 0;
	ci->raw = isatty(fd) && !rc;
	if (!rc) {
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		rc = -pthread_create(&ci->thread, NULL, console_thread, ci);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (rc)
			why_set(why, whylen, "--console-escapes: cannot start its thread: %s",
				strerror(-rc));
	}
	if (rc) {
		if (ci->raw) {
			tty_restore();
			tty_hooks_remove();
		}
		close(ci->wake_fd);
		free(ci);
		return rc;
	}
	*out = ci;
	return 0;
}

void console_input_stop(struct console_input *ci)
{
	uint64_t one = 1;

	if (!ci)
		return;
	/* poll is a cancellation point: the fallback if the wake-up cannot be sent. */
	if (write(ci->wake_fd, &one, sizeof(one)) != sizeof(one))
		pthread_cancel(ci->thread);
	pthread_join(ci->thread, NULL);
	if (ci->raw) {
		tty_restore();
		tty_hooks_remove();
	}
	close(ci->wake_fd);
	free(ci);
}
