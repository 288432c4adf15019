/* console_input.h: the host terminal's keys: Ctrl-a escapes read on a thread. */
#ifndef CSAN_VMM_CONSOLE_INPUT_H
#define CSAN_VMM_CONSOLE_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct vm;
struct console_input;

/* --console-escapes=auto|on|off */
enum console_escapes {
	CONSOLE_ESCAPES_AUTO, /* on when @fd is our foreground terminal */
	CONSOLE_ESCAPES_ON,   /* read @fd even when it is a pipe or a file */
	CONSOLE_ESCAPES_OFF,
};

/*
 * What the escape keys do beyond the console itself, given by the caller
 * (run/), so this room calls nothing above it.  Each gets the VM.
 */
struct console_actions {
	/* Ctrl-a w: switch watch mode; 0, or a negative errno with why not in @why. */
	int (*toggle_watch)(struct vm *vm, char *why, size_t whylen);
	/* The watch mode's name after a switch or a refusal ("soft", "hw"). */
	const char *(*watch_name)(const struct vm *vm);
	/* Ctrl-a s: print the counters and races so far on @f; non-zero: nothing yet. */
	int (*print_stats)(struct vm *vm, FILE *f);
};

/*
 * console_input_start - read escape keys from @fd for @vm on a thread of
 * its own (all signals blocked there, as vm_run requires).  When @fd is a
 * terminal it goes into a raw-ish mode (no echo, no line editing, Ctrl-C
 * still a signal) until console_input_stop, an exit or a fatal signal
 * puts it back.  The keys' actions are @actions's (kept, not copied).
 * Stores NULL in @out when @mode leaves escapes off.
 * Returns 0, or a negative errno with a message in @why (@whylen bytes).
 */
int console_input_start(struct vm *vm, int fd, enum console_escapes mode,
			const struct console_actions *actions, struct console_input **out,
			char *why, size_t whylen);

/*
 * console_input_stop - stop the reader (it never holds up the end of a
 * run: it waits in poll with a wake-up descriptor), restore the terminal
 * and free @ci; NULL is a no-op.
 */
void console_input_stop(struct console_input *ci);

/* console_is_our_tty - whether @fd is a terminal we may take over: ours, in the foreground. */
bool console_is_our_tty(int fd);

/*
 * console_tty_make_raw - put terminal @fd in the raw-ish mode the escape
 * reader uses (keys one by one, no echo, Ctrl-C still SIGINT), with the
 * hooks that put it back at exit or on a fatal signal; for a csan-vmm that
 * passes its keys on to another (--host=emulated).  Returns 0, or a
 * negative errno with a message in @why.
 */
int console_tty_make_raw(int fd, char *why, size_t whylen);

/* console_tty_put_back - undo console_tty_make_raw (a no-op if not raw). */
void console_tty_put_back(void);

#endif /* CSAN_VMM_CONSOLE_INPUT_H */
