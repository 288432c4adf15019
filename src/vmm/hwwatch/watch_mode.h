/* watch_mode.h: soft or hardware watchpoints, as asked for at run time. */
#ifndef CSAN_VMM_WATCH_MODE_H
#define CSAN_VMM_WATCH_MODE_H

#include <stdbool.h>
#include <stddef.h>

struct vm;

/*
 * watch_mode_set - ask for hardware (@hw) or soft-only watchpoints from
 * now on: the VM keeps the mode, the guest profile gets ready for hw mode
 * (vm->watch_hw_prepare) and tells its guest (vm->watch_mode_changed; the
 * csan guest sees it in its control block at its next watchpoint), and
 * reports say the mode from now on.  Callable from any thread.  Returns 0, or
 * -ENOTSUP when @hw is asked and vm->hw_unavailable says this host cannot
 * do it, or the run samples (vm->watch_sample, chosen at start); then @why (@whylen bytes) says why
 * and what to do.
 */
int watch_mode_set(struct vm *vm, bool hw, char *why, size_t whylen);

/* watch_mode_hw - whether hardware mode is the one asked for now. */
bool watch_mode_hw(const struct vm *vm);

/* watch_mode_name - "hw", "soft" or "sample" (--watch=sample), for messages. */
const char *watch_mode_name(const struct vm *vm);

#endif /* CSAN_VMM_WATCH_MODE_H */
