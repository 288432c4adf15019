/* x86.h: named x86 architectural constants the VMM programs into vCPUs. */
#ifndef CSAN_VMM_X86_H
#define CSAN_VMM_X86_H

/* CR0 (SDM Vol. 3A, 2.5). */
#define X86_CR0_PE (1ull << 0) /* protected mode */
#define X86_CR0_MP (1ull << 1)
#define X86_CR0_ET (1ull << 4) /* hard-wired to 1 on modern CPUs */
#define X86_CR0_NE (1ull << 5)
#define X86_CR0_WP (1ull << 16)
#define X86_CR0_PG (1ull << 31) /* paging */

/* CR4 (SDM Vol. 3A, 2.5). */
#define X86_CR4_PSE  (1ull << 4)
#define X86_CR4_PAE  (1ull << 5)
#define X86_CR4_LA57 (1ull << 12)

/* EFER MSR (SDM Vol. 3A, 2.2.1). */
#define X86_EFER_SCE (1ull << 0)
#define X86_EFER_LME (1ull << 8)
#define X86_EFER_LMA (1ull << 10)
#define X86_EFER_NXE (1ull << 11)

/* RFLAGS: bit 1 reads as 1 and must be set in any value loaded. */
#define X86_RFLAGS_FIXED (1ull << 1)
#define X86_RFLAGS_IF	 (1ull << 9)

/*
 * Segment descriptor types (SDM Vol. 3A, 3.4.5.1 and 3.5), in the 4-bit
 * form struct kvm_segment and the descriptor's type field use.
 */
#define X86_SEG_TYPE_DATA_RW_ACCESSED 0x3
#define X86_SEG_TYPE_CODE_RX_ACCESSED 0xb
#define X86_SEG_TYPE_LDT	      0x2
#define X86_SEG_TYPE_TSS32_BUSY	      0xb

/* Descriptor field positions in a GDT entry's high dword (SDM 3.4.5). */
#define X86_DESC_TYPE_SHIFT 8
#define X86_DESC_S	    (1u << 12) /* code or data, not system */
#define X86_DESC_DPL_SHIFT  13
#define X86_DESC_P	    (1u << 15)
#define X86_DESC_AVL	    (1u << 20)
#define X86_DESC_L	    (1u << 21)
#define X86_DESC_DB	    (1u << 22)
#define X86_DESC_G	    (1u << 23) /* limit in 4 KiB units */

/* The smallest limit a 32-bit TSS may have (SDM Vol. 3A, 7.2.2). */
#define X86_TSS32_LIMIT 0x67

/* CPUID leaf 1 (SDM Vol. 2A, CPUID). */
#define X86_CPUID_1_EBX_APIC_ID_SHIFT 24
#define X86_CPUID_1_EBX_LOGICAL_SHIFT 16
#define X86_CPUID_1_EDX_HTT	      (1u << 28)
#define X86_CPUID_1_ECX_HYPERVISOR    (1u << 31)
#define X86_CPUID_1_ECX_TSC_DEADLINE  (1u << 24)

/* CPUID leaves 0xB / 0x1F, extended topology. */
#define X86_TOPO_LEVEL_INVALID	  0
#define X86_TOPO_LEVEL_SMT	  1
#define X86_TOPO_LEVEL_CORE	  2
#define X86_TOPO_LEVEL_TYPE_SHIFT 8

/* The longest x86 instruction (SDM Vol. 2A, 2.3.11). */
#define X86_MAX_INSN_LEN 15

#endif /* CSAN_VMM_X86_H */
