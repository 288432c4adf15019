/* hc_report.h: the CSAN_HC_REPORT hypercall, into the report pipeline. */
#ifndef CSAN_VMM_HC_REPORT_H
#define CSAN_VMM_HC_REPORT_H

/*
 * hc_report_register - serve CSAN_HC_REPORT by handing each record to
 * vm->reports (src/watch/report_log.c).  Call before vm_run.  Returns 0,
 * or -EINVAL from hc_register.
 */
int hc_report_register(void);

#endif /* CSAN_VMM_HC_REPORT_H */
