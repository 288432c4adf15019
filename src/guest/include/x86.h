/* x86.h: architectural constants for the guest (usable from C and asm). */
#ifndef GUEST_X86_H
#define GUEST_X86_H

/* gas evaluates in 64 bits; C needs the unsigned long for bit 31 and up. */
#ifdef __ASSEMBLER__
#define BIT(n) (1 << (n))
#else
#define BIT(n) (1ul << (n))
#endif

/* Control registers (SDM Vol. 3, 2.5). */
#define X86_CR0_PE  BIT(0) /* protected mode */
#define X86_CR0_MP  BIT(1)
#define X86_CR0_EM  BIT(2) /* x87/MMX instructions raise #NM */
#define X86_CR0_ET  BIT(4)
#define X86_CR0_NE  BIT(5)
#define X86_CR0_WP  BIT(16) /* supervisor writes honour read-only pages */
#define X86_CR0_PG  BIT(31)
#define X86_CR4_PAE BIT(5)

/*
 * The guest's CR0: paging, and EM so that any x87 or MMX instruction
 * faults with #NM instead of running.  The guest keeps no FPU state, and
 * PVM's instruction emulator cannot run several FPU instructions anyway.
 * Leaving CR4.OSFXSR clear does the same for SSE (#UD).  Writing a full
 * value (rather than OR-ing bits in) also clears CD/NW, which an AP has
 * set after INIT.
 */
#define KERNEL_CR0 (X86_CR0_PE | X86_CR0_EM | X86_CR0_ET | X86_CR0_NE | X86_CR0_WP | X86_CR0_PG)
#define KERNEL_CR4 X86_CR4_PAE

/* Model-specific registers. */
#define MSR_APIC_BASE	 0x1b
#define MSR_EFER	 0xc0000080
#define MSR_GS_BASE	 0xc0000101
#define EFER_LME	 BIT(8) /* long mode enable */
#define APIC_BASE_X2APIC BIT(10)
#define APIC_BASE_ENABLE BIT(11)

/* EFLAGS. */
#define X86_EFLAGS_IF BIT(9)

/* Page-table entry bits (SDM Vol. 3, 4.5). */
#define PTE_P		BIT(0)
#define PTE_W		BIT(1)
#define PTE_PWT		BIT(3)
#define PTE_PCD		BIT(4)
#define PTE_PS		BIT(7) /* in a page-directory entry: a 2 MiB page */
#define LARGE_PAGE_SIZE 0x200000
#define PAGE_SIZE	4096

/*
 * Segment descriptors as 64-bit values (SDM Vol. 3, 3.4.5): flat base 0,
 * limit 4 GiB, the accessed bit preset so the CPU never writes the GDT.
 */
#define DESC_A		BIT(40)
#define DESC_RW		BIT(41)
#define DESC_CODE	BIT(43)
#define DESC_S		BIT(44) /* code or data, not a system descriptor */
#define DESC_P		BIT(47)
#define DESC_L		BIT(53) /* 64-bit code */
#define DESC_DB		BIT(54) /* 32-bit default operand size */
#define DESC_G		BIT(55) /* limit in 4 KiB units */
#define DESC_FLAT_LIMIT (0xffff | (0xf << 48))
#define DESC_FLAT	(DESC_FLAT_LIMIT | DESC_A | DESC_RW | DESC_S | DESC_P | DESC_G)
#define GDT_CODE64	(DESC_FLAT | DESC_CODE | DESC_L)
#define GDT_DATA	(DESC_FLAT | DESC_DB)
#define GDT_CODE32	(DESC_FLAT | DESC_CODE | DESC_DB)

/* Selectors into the guest's one GDT (arch/entry.S), and its size. */
#define SEL_CODE64  0x08
#define SEL_DATA    0x10
#define SEL_CODE32  0x18
#define GDT_ENTRIES 4

/* IDT gate type and attributes (SDM Vol. 3, 6.14.1). */
#define IDT_GATE_INTERRUPT 0xe
#define IDT_GATE_P	   0x80

/* Exception vectors with an error code pushed by the CPU. */
#define X86_EXC_HAS_ERROR_CODE(v)                                                                  \
	((v) == 8 || ((v) >= 10 && (v) <= 14) || (v) == 17 || (v) == 21 || (v) == 29 || (v) == 30)
#define X86_NR_EXCEPTIONS 32
#define X86_NR_VECTORS	  256

/* Interrupt vectors the guest uses.  Higher vectors have higher priority. */
#define PIC_VECTOR_BASE 0x20 /* the legacy PICs, remapped and masked */
#define TIMER_VECTOR	0xe0
#define WAKE_VECTOR	0xf0 /* IPI: "look at your mailbox" */
#define SPURIOUS_VECTOR 0xff

/*
 * Where APs start: the SIPI vector is the page number of their real-mode
 * entry.  0x8000 is the first page of the low RAM the contract leaves free.
 */
#define TRAMPOLINE_BASE 0x8000

/* Per-CPU kernel stacks. */
#define STACK_SIZE 16384

#endif /* GUEST_X86_H */
