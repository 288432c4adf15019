/* trampoline.S: AP real-mode start code, copied to TRAMPOLINE_BASE. */
#include "x86.h"

/*
 * An AP leaves wait-for-SIPI in real mode with CS = TRAMPOLINE_BASE >> 4
 * and IP = 0.  This code only gets it into flat 32-bit protected mode and
 * jumps to the kernel's ap_start32, which is shared long-mode set-up; so
 * nothing here depends on where the copy lives except the %cs-relative
 * GDT pointer.
 */
	.section .text.trampoline, "ax"
	.code16
	.globl	trampoline_start, trampoline_end
trampoline_start:
	cli
	cld
	lgdtl	%cs:(tr_gdt_ptr - trampoline_start)
	movl	%cr0, %eax
	orl	$X86_CR0_PE, %eax
	movl	%eax, %cr0
	ljmpl	$SEL_CODE32, $ap_start32

	.balign	8
tr_gdt_ptr:
	.word	GDT_ENTRIES * 8 - 1
	.long	gdt
trampoline_end:
