/* watch_mode.h: soft or hardware watchpoints, as asked for at run time. */
#ifndef CSAN_VMM_WATCH_MODE_H
#define CSAN_VMM_WATCH_MODE_H

#include <stdbool.h>
#include <stddef.h>

struct vm;

/*
 * watch_mode_set - ask for hardware (@hw) or soft-only watchpoints from
 * now on: the VM keeps the mode and, once the guest runtime has attached
 * its control block, mirrors it into control->watch_hw for the guest to
 * see at its next watchpoint.  Callable from any thread.  Returns 0, or
 * -ENOTSUP when @hw is asked and vm->hw_unavailable says this host cannot
 * do it; then @why (@whylen bytes) says why and what to do.
 */
int watch_mode_set(struct vm *vm, bool hw, char *why, size_t whylen);

/* watch_mode_hw - whether hardware mode is the one asked for now. */
bool watch_mode_hw(const struct vm *vm);

/* watch_mode_name - "hw" or "soft", for messages. */
const char *watch_mode_name(const struct vm *vm);

/*
 * watch_mode_publish - write the current mode into the attached control
 * block, if any; hc_attach calls it right after attaching so a mode
 * chosen before the guest attached is not lost.
 */
void watch_mode_publish(struct vm *vm);

#endif /* CSAN_VMM_WATCH_MODE_H */
