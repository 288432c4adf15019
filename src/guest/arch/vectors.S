/* vectors.S: one entry stub per interrupt vector and the common path. */
#include "x86.h"

/*
 * Each stub makes the stack uniform (an error code, 0 if the CPU pushed
 * none, then the vector) and jumps to interrupt_common.  Stubs are 16
 * bytes apart, so the IDT code finds stub v at interrupt_stubs + 16 * v.
 */
	.section .text.vectors, "ax"
	.code64
	.balign	16
	.globl	interrupt_stubs
interrupt_stubs:
	vector = 0
	.rept	X86_NR_VECTORS
	.balign	16
	.if	!X86_EXC_HAS_ERROR_CODE(vector)
	pushq	$0
	.endif
	/* push imm8 sign-extends; C masks the vector with 0xff. */
	pushq	$vector
	jmp	interrupt_common
	vector = vector + 1
	.endr

/*
 * DWARF call-frame information for interrupt_common, so a CFI unwinder
 * (csan-vmm's, gdb's) can step from a handler into the exact interrupted
 * context, even when that was a leaf function without a frame record.
 * Raw escapes, because the rules are expressions over the saved frame:
 * DW_CFA_def_cfa_expression:  CFA = *(RBP + FRAME_RSP) (interrupted RSP);
 * DW_CFA_expression:          RIP saved at RBP + FRAME_RIP,
 *                             RBP saved at RBP + FRAME_RBP.
 * Offsets are from RBP once it points at the frame record (below), in
 * signed LEB128: 176 = 0xb0 0x01, 152 = 0x98 0x01, 80 = 0xd0 0x00.
 * .cfi_signal_frame: the saved RIP is where execution stopped, not a
 * return address, so unwinders must not look it up at RIP - 1.
 */
#define DW_CFA_def_cfa_expression 0x0f
#define DW_CFA_expression 0x10
#define DW_OP_breg6 0x76 /* RBP + offset */
#define DW_OP_deref 0x06
#define DWARF_REG_RBP 6
#define DWARF_REG_RIP 16
#define FRAME_BASE 16 /* the frame record sits below struct trap_frame */
#define FRAME_RBP (FRAME_BASE + 8 * 8)
#define FRAME_RIP (FRAME_BASE + 17 * 8)
#define FRAME_RSP (FRAME_BASE + 20 * 8)
	.if FRAME_RSP != 176 || FRAME_RIP != 152 || FRAME_RBP != 80
	.error "struct trap_frame changed: update the LEB128 offsets below"
	.endif

/*
 * Save the general registers as struct trap_frame, call the C dispatcher,
 * restore.  The CPU aligned RSP to 16 before pushing its frame; with the
 * stub's 2 words and 15 registers and the 2-word frame record below,
 * RSP is 16-aligned again at the call.
 */
	.type	interrupt_common, @function
interrupt_common:
	.cfi_startproc simple
	.cfi_signal_frame
	/* Until the frame is complete there is nothing to unwind to. */
	.cfi_def_cfa %rsp, 0
	.cfi_undefined %rip
	cld
	pushq	%rax
	pushq	%rbx
	pushq	%rcx
	pushq	%rdx
	pushq	%rsi
	pushq	%rdi
	pushq	%rbp
	pushq	%r8
	pushq	%r9
	pushq	%r10
	pushq	%r11
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	/*
	 * A frame record (saved RBP, return address = interrupted RIP), so a
	 * frame-pointer unwinder walking up from the handler passes through
	 * the interrupted function instead of skipping it.
	 */
	pushq	17 * 8(%rsp)
	pushq	%rbp
	movq	%rsp, %rbp
	.cfi_escape DW_CFA_def_cfa_expression, 4, DW_OP_breg6, 0xb0, 0x01, DW_OP_deref
	.cfi_escape DW_CFA_expression, DWARF_REG_RIP, 3, DW_OP_breg6, 0x98, 0x01
	.cfi_escape DW_CFA_expression, DWARF_REG_RBP, 3, DW_OP_breg6, 0xd0, 0x00
	leaq	16(%rsp), %rdi
	call	interrupt_dispatch
	addq	$16, %rsp
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%r11
	popq	%r10
	popq	%r9
	popq	%r8
	popq	%rbp
	/*
	 * Only now do the RBP-based rules stop holding.  They must cover the
	 * return address of the call above as well as the call itself: gdb
	 * looks a signal frame's own rules up at its PC, elfutils and libgcc
	 * at PC - 1.
	 */
	.cfi_def_cfa %rsp, 0
	.cfi_undefined %rip
	.cfi_undefined %rbp
	popq	%rdi
	popq	%rsi
	popq	%rdx
	popq	%rcx
	popq	%rbx
	popq	%rax
	addq	$16, %rsp
	iretq
	.cfi_endproc
	.size	interrupt_common, . - interrupt_common
