/* hc_attach.h: the guest runtime's control block (CSAN_HC_ATTACH). */
#ifndef CSAN_VMM_HC_ATTACH_H
#define CSAN_VMM_HC_ATTACH_H

#include <stdio.h>

struct vm;

/*
 * hc_attach_register - serve CSAN_HC_ATTACH: check the block once and keep
 * it in vm->control.  Call before vm_run.  Returns 0, or -EINVAL.
 */
int hc_attach_register(void);

/*
 * hc_attach_print_counters - print the runtime's counters (KCSAN's debugfs
 * names) on @f, one "csan-vmm: counters:" line; nothing if the guest never
 * attached.
 */
void hc_attach_print_counters(struct vm *vm, FILE *f);

#endif /* CSAN_VMM_HC_ATTACH_H */
