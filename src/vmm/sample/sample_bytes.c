/*
 * sample_bytes.c: what a site's bytes should be (the vmlinux's), and
 * whether the guest's copy still is that.  Its own file: the draw
 * (sample_setup.c) and the hit (sample_hit.c) both ask, and neither
 * calls the other.
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "vmm/image/elf_guest.h"
#include "vmm/kvm/vm.h"
#include "vmm/sample/sampler.h"

const struct elf_segment *sample_segment_of(const struct elf_guest *g, uint64_t va, uint64_t len)
{
	size_t i;

	for (i = 0; g && i < g->nsegs; i++) {
		const struct elf_segment *s = &g->segs[i];

		if (va >= s->vaddr && va + len <= s->vaddr + s->filesz)
			return s;
	}
	return NULL;
}

const uint8_t *sample_expected_bytes(struct sampler *sp, uint64_t va, unsigned len)
{
	const struct elf_guest *g = sp->vm->image;
	const struct elf_segment *s = sample_segment_of(g, va, len);

	if (!s || !g->image || s->offset + (va - s->vaddr) + len > g->image_size)
		return NULL;
	return g->image + s->offset + (va - s->vaddr);
}

/*
 * Whether the @len bytes at link address @va are in guest memory what
 * they are in the vmlinux: the guest may have rewritten them (static
 * keys, text poking), and a site whose instruction is no longer the one
 * in the table must never get a code breakpoint, whose hit would compute
 * the address of another instruction's operand.  The guest's copy is
 * found by the physical KASLR offset; false when either is out of reach.
 * Under KASLR the kernel's absolute addresses in its text moved with it:
 * still the site (sample_bytes_relocated).
 */
bool sample_site_in_place(struct sampler *sp, uint64_t va, unsigned len)
{
	const struct elf_guest *g = sp->vm->image;
	const struct elf_segment *s = sample_segment_of(g, va, len);
	const uint8_t *want = sample_expected_bytes(sp, va, len), *have;

	if (!want)
		return false;
	have = vm_gpa_to_hva(sp->vm, s->paddr + (va - s->vaddr) + (uint64_t)sp->phys_off, len);
	return have && sample_bytes_relocated(have, want, len, sp->virt_off);
}
