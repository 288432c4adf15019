/* pvh-note.S: the PVH entry note, so csan-vmm and QEMU find pvh_start32. */
#include <csan/pvh.h>

/*
 * ELF note: namesz, descsz, type, name (padded to 4), descriptor.  The
 * descriptor is 8 bytes, the 64-bit form Linux also uses.
 */
	.section .note.pvh, "a", @note
	.balign	4
	.long	2f - 1f
	.long	4f - 3f
	.long	XEN_ELFNOTE_PHYS32_ENTRY
1:	.asciz	PVH_NOTE_NAME
2:	.balign	4
3:	.quad	pvh_start32
4:	.balign	4
