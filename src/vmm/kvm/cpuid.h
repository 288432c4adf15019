/* cpuid.h: the CPUID each vCPU sees: KVM's supported set, topology, csan leaves. */
#ifndef CSAN_VMM_CPUID_H
#define CSAN_VMM_CPUID_H

#include <stdint.h>

#include <linux/kvm.h>

/*
 * cpuid_get_supported - KVM_GET_SUPPORTED_CPUID on /dev/kvm's @kvm_fd,
 * growing the buffer until the list fits, plus the TSC-deadline timer
 * where KVM emulates it (KVM_CAP_TSC_DEADLINE_TIMER).  Returns 0 with a malloc'd list
 * in @out (free() it), or a negative errno.
 */
int cpuid_get_supported(int kvm_fd, struct kvm_cpuid2 **out);

/*
 * cpuid_build - the table for the vCPU with APIC ID @apic_id of @ncpus:
 * @base with one package of @ncpus single-thread cores (leaves 1, 4, 0xB,
 * 0x1F, 0x80000008, 0x8000001E as present) and the csan leaves
 * (CSAN_CPUID_BASE/INFO, with @tsc_khz, 0 if unknown).  Pure, for tests.
 * Returns a malloc'd table, or NULL when out of memory.
 */
struct kvm_cpuid2 *cpuid_build(const struct kvm_cpuid2 *base, unsigned apic_id, unsigned ncpus,
			       uint32_t tsc_khz);

/*
 * cpuid_apply - cpuid_build() and KVM_SET_CPUID2 on @vcpu_fd.
 * Returns 0, -ENOMEM, or KVM_SET_CPUID2's negative errno.
 */
int cpuid_apply(int vcpu_fd, const struct kvm_cpuid2 *base, unsigned apic_id, unsigned ncpus,
		uint32_t tsc_khz);

/* The local APIC timer's input clock: KVM's APIC bus runs at 1 GHz. */
#define CPUID_APIC_TIMER_KHZ 1000000u

#endif /* CSAN_VMM_CPUID_H */
