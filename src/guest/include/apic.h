/* apic.h: the local APIC (xAPIC, memory-mapped) and the legacy PICs. */
#ifndef GUEST_APIC_H
#define GUEST_APIC_H

#include "compiler.h"

/* lapic_init - enable this CPU's local APIC with every LVT masked. */
void lapic_init(void);

/* lapic_id - this CPU's APIC ID. */
uint32_t lapic_id(void);

/* lapic_eoi - end of interrupt for the vector being handled. */
void lapic_eoi(void);

/*
 * lapic_timer_start - periodic interrupts at @hz on TIMER_VECTOR, counted
 * at platform.apic_khz.  Returns the initial count used.
 */
uint32_t lapic_timer_start(uint32_t hz);

/*
 * lapic_measure_tsc_khz - the TSC frequency, measured against the APIC
 * timer (which must not be running yet) over about @ms milliseconds.
 */
uint32_t lapic_measure_tsc_khz(uint32_t ms);

/* IPIs; all wait until the local APIC has accepted the command. */
void lapic_send_ipi(uint32_t apic_id, uint8_t vector);
void lapic_send_init(uint32_t apic_id);
void lapic_send_sipi(uint32_t apic_id, uint8_t page);

/* pic_disable - remap the 8259 PICs off the exception vectors, mask them. */
void pic_disable(void);

#endif /* GUEST_APIC_H */
