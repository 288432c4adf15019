/* smp.h: secondary CPUs: bring-up and running work on them. */
#ifndef GUEST_SMP_H
#define GUEST_SMP_H

#include "percpu.h"

/*
 * smp_boot - start every AP in @apic_ids (index 0 is this boot CPU), each
 * with its local APIC timer at @timer_hz.  Panics naming an AP that does
 * not check in.
 */
void smp_boot(const uint32_t *apic_ids, unsigned int count, uint32_t timer_hz);

/* csan_ncpus - CPUs brought online (the boot CPU included). */
unsigned int csan_ncpus(void);

/* csan_cpus_expected - CPUs the firmware tables listed. */
unsigned int csan_cpus_expected(void);

/* csan_cpu_ticks - timer interrupts CPU @cpu has taken so far. */
uint64_t csan_cpu_ticks(unsigned int cpu);

/*
 * csan_cpu_post - start fn(arg) on CPU @cpu (not the caller) and return at
 * once.  Waits first for that CPU's previous work to finish.
 */
void csan_cpu_post(unsigned int cpu, csan_work_fn fn, void *arg);

/* csan_cpu_wait - wait until CPU @cpu has finished all work posted to it. */
void csan_cpu_wait(unsigned int cpu);

/*
 * csan_run_on_cpus - run fn(arg) on every online CPU, the caller included
 * (it runs its share last), and return when all have finished.
 */
void csan_run_on_cpus(csan_work_fn fn, void *arg);

/* ap_main - where each AP's C code starts (from arch/entry.S). */
__noreturn void ap_main(void);

#endif /* GUEST_SMP_H */
