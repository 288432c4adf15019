/* entry.S: PVH entry (32-bit, paging off) and the AP path into long mode. */
#include "x86.h"

/*
 * ENTER_LONG_MODE: from flat 32-bit protected mode with our GDT loaded,
 * switch on PAE paging with the identity map (arch/pagetables.S) and
 * long mode, then far-jump to 64-bit code at \target (SDM Vol. 3, 9.8.5).
 */
.macro ENTER_LONG_MODE target
	movl	$KERNEL_CR4, %eax
	movl	%eax, %cr4
	movl	$pml4, %eax
	movl	%eax, %cr3
	movl	$MSR_EFER, %ecx
	rdmsr
	orl	$EFER_LME, %eax
	wrmsr
	movl	$KERNEL_CR0, %eax
	movl	%eax, %cr0
	ljmp	$SEL_CODE64, $\target
.endm

.macro LOAD_DATA_SEGMENTS
	movl	$SEL_DATA, %eax
	movl	%eax, %ds
	movl	%eax, %es
	movl	%eax, %ss
	/* FS/GS null: the GS base is set through its MSR (percpu_setup). */
	xorl	%eax, %eax
	movl	%eax, %fs
	movl	%eax, %gs
.endm

	.section .text.entry, "ax"
	.code32

/*
 * The boot CPU starts here (the PVH note points at it): flat 32-bit
 * protected mode, paging and interrupts off, EBX = start info.
 */
	.globl	pvh_start32
	.type	pvh_start32, @function
pvh_start32:
	cli
	cld
	/* Keep the start info pointer in ESI; nothing below uses it. */
	movl	%ebx, %esi
	lgdt	gdt_ptr
	ENTER_LONG_MODE start64
	.size	pvh_start32, . - pvh_start32

/*
 * APs arrive from the real-mode trampoline (arch/trampoline.S) with
 * protection on and CS = SEL_CODE32; the boot CPU has set ap_boot_stack.
 */
	.globl	ap_start32
	.type	ap_start32, @function
ap_start32:
	movl	$SEL_DATA, %eax
	movl	%eax, %ds
	movl	%eax, %es
	movl	%eax, %ss
	ENTER_LONG_MODE ap_start64
	.size	ap_start32, . - ap_start32

	.code64
/*
 * start64 and ap_start64 are the outermost frames: their CFI says so
 * (RIP undefined), so unwinders stop here instead of guessing.
 */
	.type	start64, @function
start64:
	.cfi_startproc simple
	.cfi_def_cfa %rsp, 0
	.cfi_undefined %rip
	LOAD_DATA_SEGMENTS
	/*
	 * The upper halves of the registers are undefined after the switch
	 * from compatibility mode; a 32-bit move clears them.
	 */
	movl	%esi, %ebx
	/*
	 * Zero .bss.  The loader zeroes p_memsz past p_filesz already; this
	 * keeps the kernel correct under a loader that does not.  Stacks and
	 * page tables lie outside [__bss_start, __bss_end).
	 */
	movl	$__bss_start, %edi
	movl	$__bss_end, %ecx
	subl	%edi, %ecx
	shrl	$3, %ecx
	xorl	%eax, %eax
	rep stosq
	/* CPU 0's stack; a zero frame pointer ends host-side backtraces. */
	movq	$(cpu_stacks + STACK_SIZE), %rsp
	xorl	%ebp, %ebp
	movq	%rbx, %rdi
	call	kernel_main
1:	cli
	hlt
	jmp	1b
	.cfi_endproc
	.size	start64, . - start64

	.type	ap_start64, @function
ap_start64:
	.cfi_startproc simple
	.cfi_def_cfa %rsp, 0
	.cfi_undefined %rip
	LOAD_DATA_SEGMENTS
	movq	ap_boot_stack(%rip), %rsp
	xorl	%ebp, %ebp
	call	ap_main
1:	cli
	hlt
	jmp	1b
	.cfi_endproc
	.size	ap_start64, . - ap_start64

/*
 * The one GDT, shared by all CPUs: no TSS, since the guest never changes
 * privilege level and uses no interrupt stacks.
 */
	.section .data.gdt, "aw"
	.balign	16
	.globl	gdt
gdt:
	.quad	0
	.quad	GDT_CODE64	/* SEL_CODE64 */
	.quad	GDT_DATA	/* SEL_DATA */
	.quad	GDT_CODE32	/* SEL_CODE32 */
gdt_end:
	/* The trampoline's copy of the limit comes from GDT_ENTRIES. */
	.if	gdt_end - gdt != GDT_ENTRIES * 8
	.error	"GDT_ENTRIES does not match the GDT"
	.endif

/*
 * LGDT pointer.  The base is stored as 8 bytes, so the same pointer loads
 * from 32-bit code (which reads 4 of them) and 64-bit code.
 */
	.balign	8
	.word	0, 0, 0
	.globl	gdt_ptr
gdt_ptr:
	.word	gdt_end - gdt - 1
	.quad	gdt
