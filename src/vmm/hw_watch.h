/* hw_watch.h: hardware-watchpoint mode: guest watches backed by debug registers. */
#ifndef CSAN_VMM_HW_WATCH_H
#define CSAN_VMM_HW_WATCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "csan/abi.h"

struct vm;
struct vcpu;
struct hw_engine;

/*
 * hw_engine_new - the per-VM state of hardware watches: which debug
 * registers hold which guest watch, what each caught.  Returns NULL when
 * out of memory.  hw_engine_free releases it (NULL is a no-op).
 */
struct hw_engine *hw_engine_new(void);
void hw_engine_free(struct hw_engine *hw);

/* hw_watch_register - serve CSAN_HC_HW_ARM and CSAN_HC_HW_DISARM.  Returns 0 or -EINVAL. */
int hw_watch_register(void);

/*
 * hw_watch_debug_exit - a KVM_EXIT_DEBUG on @vcpu (its own thread): a
 * data watch of ours that trapped is recorded (instruction, registers,
 * stack) for the watch it belongs to; anything else is said on stderr and
 * handed to the guest as the #DB it would have seen without us.  Returns
 * VCPU_RESUME, or VCPU_STOP after vm_end() on a host error.
 */
int hw_watch_debug_exit(struct vcpu *vcpu);

/*
 * hw_watch_complete_report - @r came from @cpu with a hw_ticket: give the
 * side the debug registers caught the stack unwound at the trap, and mark
 * a soft side that the registers also caught as seen by both.  Unknown or
 * stale tickets leave @r as it is (the guest is not trusted).
 */
void hw_watch_complete_report(struct vm *vm, unsigned cpu, struct csan_hc_report *r);

/*
 * hw_watch_print_stats - one line of what the engine did (arms, slots
 * short, hits, foreign debug exits, mean arm and disarm cost); nothing
 * when it never armed.
 */
void hw_watch_print_stats(struct vm *vm, FILE *f);

#endif /* CSAN_VMM_HW_WATCH_H */
