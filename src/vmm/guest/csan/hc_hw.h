/* hc_hw.h: the CSAN_HC_HW_ARM and CSAN_HC_HW_DISARM hypercalls, into the watch engine. */
#ifndef CSAN_VMM_HC_HW_H
#define CSAN_VMM_HC_HW_H

#include <stddef.h>

struct vm;

/*
 * hc_hw_register - serve CSAN_HC_HW_ARM and CSAN_HC_HW_DISARM with
 * hw_watch_arm and hw_watch_disarm (hwwatch/hw_watch.h).  Call before
 * vm_run.  Returns 0, or hc_register's error with a message in @why.
 */
int hc_hw_register(struct vm *vm, char *why, size_t whylen);

#endif /* CSAN_VMM_HC_HW_H */
