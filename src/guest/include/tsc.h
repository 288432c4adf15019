/* tsc.h: time from the TSC: delays and timeouts. */
#ifndef GUEST_TSC_H
#define GUEST_TSC_H

#include "compiler.h"

/* tsc_init - learn the TSC frequency (csan-vmm says; else measure it). */
void tsc_init(void);

/* tsc_khz_get - the TSC frequency in kHz. */
uint32_t tsc_khz_get(void);

/* uptime_us - microseconds since tsc_init. */
uint64_t uptime_us(void);

/* udelay - spin for at least @us microseconds. */
void udelay(uint64_t us);

/* A deadline @us microseconds from now, and whether it has passed. */
uint64_t deadline_after_us(uint64_t us);
bool deadline_passed(uint64_t deadline);

#endif /* GUEST_TSC_H */
