/* hc_hw.h: the CSAN_HC_HW_ARM and CSAN_HC_HW_DISARM hypercalls, into the watch engine. */
#ifndef CSAN_VMM_HC_HW_H
#define CSAN_VMM_HC_HW_H

/*
 * hc_hw_register - serve CSAN_HC_HW_ARM and CSAN_HC_HW_DISARM with
 * hw_watch_arm and hw_watch_disarm (hwwatch/hw_watch.h).  Call before
 * vm_run.  Returns 0, or -EINVAL from hc_register.
 */
int hc_hw_register(void);

#endif /* CSAN_VMM_HC_HW_H */
