/* cpuid.c: the CPUID each vCPU sees: KVM's supported set, topology, csan leaves. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "csan/abi.h"
#include "vmm/kvm/cpuid.h"
#include "vmm/kvm/x86.h"

/* Where KVM_GET_SUPPORTED_CPUID starts; it says E2BIG when that is short. */
#define CPUID_INITIAL_ENTRIES 128
#define CPUID_MAX_ENTRIES     4096
/* Entries cpuid_build may add: 0xB and 0x1F x 3 subleaves, 2 csan leaves. */
#define CPUID_EXTRA_ENTRIES 8

#define LEAF_TOPOLOGY	    0xbu
#define LEAF_CACHE_PARAMS   0x4u
#define LEAF_V2_TOPOLOGY    0x1fu
#define LEAF_EXT_ADDR_SIZES 0x80000008u
#define LEAF_EXT_APIC_ID    0x8000001eu

/* AMD "AuthenticAMD" / Hygon "HygonGenuine" in leaf 0 EBX. */
#define CPUID_VENDOR_AMD_EBX   0x68747541u
#define CPUID_VENDOR_HYGON_EBX 0x6f677948u

static size_t cpuid2_size(unsigned nent)
{
	return sizeof(struct kvm_cpuid2) + (size_t)nent * sizeof(struct kvm_cpuid_entry2);
}

static void add_tsc_deadline(int kvm_fd, struct kvm_cpuid2 *c);

int cpuid_get_supported(int kvm_fd, struct kvm_cpuid2 **out)
{
	unsigned nent;

	for (nent = CPUID_INITIAL_ENTRIES; nent <= CPUID_MAX_ENTRIES; nent *= 2) {
		struct kvm_cpuid2 *c = calloc(1, cpuid2_size(nent));

		if (!c)
			return -ENOMEM;
		c->nent = nent;
		if (ioctl(kvm_fd, KVM_GET_SUPPORTED_CPUID, c) == 0) {
			add_tsc_deadline(kvm_fd, c);
			*out = c;
			return 0;
		}
		free(c);
		if (errno != E2BIG)
			return -errno;
	}
	return -E2BIG;
}

static struct kvm_cpuid_entry2 *find(struct kvm_cpuid2 *c, uint32_t function, uint32_t index)
{
	unsigned i;

	for (i = 0; i < c->nent; i++)
		if (c->entries[i].function == function && c->entries[i].index == index)
			return &c->entries[i];
	return NULL;
}

/*
 * The TSC-deadline timer is KVM's own (its in-kernel LAPIC emulates it on
 * any host), so KVM_GET_SUPPORTED_CPUID leaves it out and VMMs add it when
 * KVM says it can.  With it, Linux arms its LAPIC timer by TSC deadline
 * and skips calibrating the LAPIC timer against the PIT, which a slow
 * (nested, emulated) host fails: "APIC timer disabled due to verification
 * failure", and then every tick is a broadcast IPI.
 */
static void add_tsc_deadline(int kvm_fd, struct kvm_cpuid2 *c)
{
	struct kvm_cpuid_entry2 *e = find(c, 1, 0);

	if (e && ioctl(kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_TSC_DEADLINE_TIMER) > 0)
		e->ecx |= X86_CPUID_1_ECX_TSC_DEADLINE;
}

static void add(struct kvm_cpuid2 *c, uint32_t function, uint32_t index, uint32_t flags,
		uint32_t eax, uint32_t ebx, uint32_t ecx, uint32_t edx)
{
	c->entries[c->nent++] = (struct kvm_cpuid_entry2){
		.function = function,
		.index = index,
		.flags = flags,
		.eax = eax,
		.ebx = ebx,
		.ecx = ecx,
		.edx = edx,
	};
}

/* Bits of APIC ID that number cores: the smallest shift covering @ncpus. */
static unsigned core_shift(unsigned ncpus)
{
	unsigned s = 0;

	while ((1u << s) < ncpus)
		s++;
	return s;
}

/*
 * Leaves 0xB and 0x1F (SDM Vol. 2A, CPUID): an SMT level of one thread,
 * then a core level spanning all vCPUs, then the terminating level.
 */
static void add_topology_leaf(struct kvm_cpuid2 *c, uint32_t leaf, unsigned apic_id, unsigned ncpus)
{
	const uint32_t f = KVM_CPUID_FLAG_SIGNIFCANT_INDEX;

	add(c, leaf, 0, f, 0, 1, X86_TOPO_LEVEL_SMT << X86_TOPO_LEVEL_TYPE_SHIFT | 0, apic_id);
	add(c, leaf, 1, f, core_shift(ncpus), ncpus,
	    X86_TOPO_LEVEL_CORE << X86_TOPO_LEVEL_TYPE_SHIFT | 1, apic_id);
	add(c, leaf, 2, f, 0, 0, X86_TOPO_LEVEL_INVALID << X86_TOPO_LEVEL_TYPE_SHIFT | 2, apic_id);
}

/* Leaves 1 and 4: the legacy view of the same package. */
static void patch_legacy_topology(struct kvm_cpuid2 *c, unsigned apic_id, unsigned ncpus)
{
	unsigned span = 1u << core_shift(ncpus);
	struct kvm_cpuid_entry2 *e = find(c, 1, 0);
	unsigned i;

	if (e) {
		e->ebx &= 0x0000ffffu;
		e->ebx |= (uint32_t)apic_id << X86_CPUID_1_EBX_APIC_ID_SHIFT;
		e->ebx |= (uint32_t)(span > 0xff ? 0xff : span) << X86_CPUID_1_EBX_LOGICAL_SHIFT;
		if (ncpus > 1)
			e->edx |= X86_CPUID_1_EDX_HTT;
		else
			e->edx &= ~X86_CPUID_1_EDX_HTT;
	}
	/* EAX[31:26] cores per package - 1; [25:14] threads sharing - 1. */
	for (i = 0; i < c->nent; i++) {
		e = &c->entries[i];
		if (e->function != LEAF_CACHE_PARAMS || !(e->eax & 0x1f))
			continue;
		e->eax &= 0x00003fffu;
		e->eax |= (uint32_t)((span - 1) & 0x3f) << 26;
		if (((e->eax >> 5) & 7) >= 3) /* the last level is shared by all cores */
			e->eax |= (uint32_t)((span - 1) & 0xfff) << 14;
	}
}

/* AMD's leaves: core count in 0x80000008 ECX, extended APIC ID in 0x8000001E. */
static void patch_amd_topology(struct kvm_cpuid2 *c, unsigned apic_id, unsigned ncpus)
{
	struct kvm_cpuid_entry2 *v = find(c, 0, 0);
	struct kvm_cpuid_entry2 *e;

	if (!v || (v->ebx != CPUID_VENDOR_AMD_EBX && v->ebx != CPUID_VENDOR_HYGON_EBX))
		return;
	e = find(c, LEAF_EXT_ADDR_SIZES, 0);
	if (e) {
		e->ecx &= ~0xf0ffu;
		e->ecx |= (ncpus - 1) & 0xff;
		e->ecx |= core_shift(ncpus) << 12;
	}
	e = find(c, LEAF_EXT_APIC_ID, 0);
	if (e) {
		e->eax = apic_id;
		e->ebx = apic_id & 0xff; /* core ID; one thread per core */
		e->ecx = 0;		 /* node 0, one node */
		e->edx = 0;
	}
}

static bool replaced_leaf(uint32_t function)
{
	return function == LEAF_TOPOLOGY || function == LEAF_V2_TOPOLOGY ||
	       function == CSAN_CPUID_BASE || function == CSAN_CPUID_INFO;
}

struct kvm_cpuid2 *cpuid_build(const struct kvm_cpuid2 *base, unsigned apic_id, unsigned ncpus,
			       uint32_t tsc_khz)
{
	struct kvm_cpuid2 *c = calloc(1, cpuid2_size(base->nent + CPUID_EXTRA_ENTRIES));
	struct kvm_cpuid_entry2 *e1;
	bool has_v2 = false;
	uint32_t max_basic = 0;
	unsigned i;

	if (!c)
		return NULL;
	for (i = 0; i < base->nent; i++) {
		const struct kvm_cpuid_entry2 *e = &base->entries[i];

		if (e->function == 0)
			max_basic = e->eax;
		if (e->function == LEAF_V2_TOPOLOGY)
			has_v2 = true;
		if (!replaced_leaf(e->function))
			c->entries[c->nent++] = *e;
	}
	/*
	 * CPUID.1:ECX[31], "running under a hypervisor": KVM leaves it to the
	 * VMM.  Linux looks for KVM's leaves (0x40000000, kvm-clock) only
	 * when it is set; without them it calibrates the TSC against the PIT.
	 */
	e1 = find(c, 1, 0);
	if (e1)
		e1->ecx |= X86_CPUID_1_ECX_HYPERVISOR;
	patch_legacy_topology(c, apic_id, ncpus);
	patch_amd_topology(c, apic_id, ncpus);
	if (max_basic >= LEAF_TOPOLOGY)
		add_topology_leaf(c, LEAF_TOPOLOGY, apic_id, ncpus);
	if (has_v2)
		add_topology_leaf(c, LEAF_V2_TOPOLOGY, apic_id, ncpus);
	add(c, CSAN_CPUID_BASE, 0, 0, CSAN_CPUID_INFO, CSAN_CPUID_SIG_EBX, CSAN_CPUID_SIG_ECX,
	    CSAN_CPUID_SIG_EDX);
	add(c, CSAN_CPUID_INFO, 0, 0, CSAN_ABI_VERSION, tsc_khz, CPUID_APIC_TIMER_KHZ, 0);
	return c;
}

int cpuid_apply(int vcpu_fd, const struct kvm_cpuid2 *base, unsigned apic_id, unsigned ncpus,
		uint32_t tsc_khz)
{
	struct kvm_cpuid2 *c = cpuid_build(base, apic_id, ncpus, tsc_khz);
	int r = 0;

	if (!c)
		return -ENOMEM;
	if (ioctl(vcpu_fd, KVM_SET_CPUID2, c) < 0)
		r = -errno;
	free(c);
	return r;
}
