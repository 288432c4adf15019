/* hc_attach.h: the guest runtime's control block (CSAN_HC_ATTACH). */
#ifndef CSAN_VMM_HC_ATTACH_H
#define CSAN_VMM_HC_ATTACH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "csan/abi.h"

struct vm;
struct csan_state;

/*
 * hc_attach_register - serve CSAN_HC_ATTACH: check the block once and keep
 * it in @cs, the csan state of @vm (csan_state.h), which the call's
 * context makes findable.  Call before vm_run.  Returns 0, or
 * hc_register's error with a message in @why.
 */
int hc_attach_register(struct vm *vm, struct csan_state *cs, char *why, size_t whylen);

/*
 * hc_attach_print_counters - print the runtime's counters (KCSAN's debugfs
 * names) on @f, one "csan-vmm: counters:" line; nothing if the guest never
 * attached.
 */
void hc_attach_print_counters(struct vm *vm, FILE *f);

/*
 * hc_attach_counter - the current value of the runtime's counter @c, or 0
 * when the guest has not attached or does not maintain that counter.
 * Any thread: one aligned 64-bit load from guest RAM.
 */
uint64_t hc_attach_counter(struct vm *vm, enum csan_counter c);

/*
 * csan_publish_watch_mode - write the watch mode asked for (watch_mode.h)
 * into the guest's control block, where its runtime reads it; nothing
 * before the attach (the attach publishes then).  The csan profile's
 * watch_changed hook.
 */
void csan_publish_watch_mode(struct vm *vm);

#endif /* CSAN_VMM_HC_ATTACH_H */
