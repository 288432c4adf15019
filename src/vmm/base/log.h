/* log.h: every message csan-vmm writes for the user, with one prefix and one style. */
#ifndef CSAN_VMM_LOG_H
#define CSAN_VMM_LOG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* The one place the program's name is written before a message. */
#define LOG_PREFIX "csan-vmm: "

/*
 * Messages go to stderr, a line at a time, prefixed with LOG_PREFIX:
 *
 *   log_error()        something failed, or what the user asked for
 *                      happened; the caller decides what follows
 *   log_error_errno()  the same, ending in ": " and strerror(@err)
 *   log_warn()         "warning: ": the run goes on without what the user
 *                      asked for (a feature switched off), so they should know
 *   log_to()           log_error()'s line on another stream (--probe's)
 *
 * A fatal error is a log_error() and a negative errno returned up to
 * main, which turns it into an exit status (base/exit_status.h); nothing
 * below main exits.
 * Functions that take an errno take it as an argument, so the caller's
 * expression `errno` is read before anything (snprintf, a second ioctl,
 * the status line) can change it.  Every function holds stderr's lock for
 * the whole line and first calls the hook set by log_set_before_output()
 * (the status line erases itself there), so no line is ever drawn over.
 */
#define log_error(...)		  log_at(stderr, "", 0, __VA_ARGS__)
#define log_error_errno(err, ...) log_at(stderr, "", (err), __VA_ARGS__)
#define log_warn(...)		  log_at(stderr, "warning: ", 0, __VA_ARGS__)
#define log_to(f, ...)		  log_at((f), "", 0, __VA_ARGS__)

/*
 * log_at - what the macros above expand to: one line on @f, LOG_PREFIX,
 * @tag, the message, and ": strerror(@err)" when @err is not 0.
 */
__attribute__((format(printf, 4, 5))) void log_at(FILE *f, const char *tag, int err,
						  const char *fmt, ...);

/*
 * log_begin, log_end - around a message of several lines or parts written
 * with fprintf(stderr, ...): take stderr's lock and clear the terminal
 * for it (log_begin), then release the lock (log_end).  The caller writes
 * LOG_PREFIX itself at the start of each line.
 */
void log_begin(void);
void log_end(void);

/*
 * log_set_before_output - @fn runs before anything is written to the
 * terminal (under stderr's lock, any thread); NULL for nothing.  The
 * status line registers its eraser here, so the core writes messages
 * without knowing whether a status line is drawn.
 */
void log_set_before_output(void (*fn)(void));

/* log_before_output - call the hook, for writers of other terminal output (the guest console). */
void log_before_output(void);

/*
 * why_set, why_errno - write a message for the user into @why (@len
 * bytes), for functions that return an error and let their caller say
 * it.  why_errno appends ": " and strerror(@err) and returns -@err, so
 * `return why_errno(why, len, errno, "KVM_CREATE_VM failed");` reads
 * errno exactly once, first.
 */
__attribute__((format(printf, 3, 4))) void why_set(char *why, size_t len, const char *fmt, ...);
__attribute__((format(printf, 4, 5))) int why_errno(char *why, size_t len, int err, const char *fmt,
						    ...);

#endif /* CSAN_VMM_LOG_H */
