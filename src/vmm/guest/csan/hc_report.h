/* hc_report.h: the CSAN_HC_REPORT hypercall, into the report pipeline. */
#ifndef CSAN_VMM_HC_REPORT_H
#define CSAN_VMM_HC_REPORT_H

#include <stddef.h>

struct vm;

/*
 * hc_report_register - serve CSAN_HC_REPORT by handing each record to
 * vm->reports (src/watch/report_log.c).  Call before vm_run.  Returns 0,
 * or -EINVAL from hc_register.
 */
int hc_report_register(struct vm *vm, char *why, size_t whylen);

#endif /* CSAN_VMM_HC_REPORT_H */
