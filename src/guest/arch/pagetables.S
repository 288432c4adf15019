/* pagetables.S: the identity map of the first 4 GiB, built at link time. */
#include "x86.h"

/*
 * One PML4 entry -> one PDPT with 4 entries -> 4 page directories of
 * 2 MiB pages.  Every CPU uses these tables as they are; nothing changes
 * them at run time.  Being data, they cost no start-up time (the PVH
 * entry runs emulated at about 1.6 M instructions/s on PVM hosts).
 * The last GiB, [0xc0000000, 4 GiB), is devices (CSAN_RAM_LIMIT; the I/O
 * APIC and local APICs live there) and is mapped cache-disabled.
 */
#define PDE_RAM (PTE_P | PTE_W | PTE_PS)
#define PDE_DEVICE (PDE_RAM | PTE_PCD | PTE_PWT)
#define TABLE_ENTRY(t) ((t) + PTE_P + PTE_W)

	.section .data.pagetables, "aw"
	.balign	PAGE_SIZE
	.globl	pml4
pml4:
	.quad	TABLE_ENTRY(pdpt)
	.fill	511, 8, 0

	.balign	PAGE_SIZE
pdpt:
	.quad	TABLE_ENTRY(pd + 0 * PAGE_SIZE)
	.quad	TABLE_ENTRY(pd + 1 * PAGE_SIZE)
	.quad	TABLE_ENTRY(pd + 2 * PAGE_SIZE)
	.quad	TABLE_ENTRY(pd + 3 * PAGE_SIZE)
	.fill	508, 8, 0

	.balign	PAGE_SIZE
pd:
	addr = 0
	.rept	3 * 512
	.quad	addr + PDE_RAM
	addr = addr + LARGE_PAGE_SIZE
	.endr
	.rept	512
	.quad	addr + PDE_DEVICE
	addr = addr + LARGE_PAGE_SIZE
	.endr
