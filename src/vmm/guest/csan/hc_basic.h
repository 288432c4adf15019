/* hc_basic.h: the csan guest's console, exit and fault hypercalls. */
#ifndef CSAN_VMM_HC_BASIC_H
#define CSAN_VMM_HC_BASIC_H

#include <stddef.h>

struct vm;

/*
 * hc_basic_register - serve CSAN_HC_PUTS (to the console), CSAN_HC_EXIT
 * (the run ends with the guest's status) and CSAN_HC_FAULT (a guest
 * exception or panic, reported with its registers) on @vm, whose
 * hypercall ports are attached.  Returns 0 or hc_register's error, with
 * a message in @why.
 */
int hc_basic_register(struct vm *vm, char *why, size_t whylen);

#endif /* CSAN_VMM_HC_BASIC_H */
