/* abi-note.S: the csan-vmm ABI note csan-vmm checks before it boots us. */
#include <csan/abi.h>

/*
 * The refusal tests build a copy of the guest with another version
 * (abi-note-badabi.S) and one without this object at all.
 */
#ifndef GUEST_ABI_NOTE_VERSION
#define GUEST_ABI_NOTE_VERSION CSAN_ABI_VERSION
#endif

	.section .note.csan, "a", @note
	.balign	4
	.long	2f - 1f
	.long	4f - 3f
	.long	CSAN_NOTE_ABI
1:	.asciz	CSAN_NOTE_NAME
2:	.balign	4
3:	.long	GUEST_ABI_NOTE_VERSION
4:	.balign	4
