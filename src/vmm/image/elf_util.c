/* elf_util.c: what the ELF loader's checks share: messages naming the file, code ranges. */
#include <elf.h>
#include <stdarg.h>
#include <stdio.h>

#include "vmm/image/elf_guest.h"
#include "vmm/image/elf_private.h"

int elf_say(char *why, size_t whylen, const char *path, int err, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!why || !whylen)
		return err;
	n = snprintf(why, whylen, "%s: ", path);
	if (n >= 0 && (size_t)n < whylen) {
		va_start(ap, fmt);
		vsnprintf(why + n, whylen - n, fmt, ap);
		va_end(ap);
	}
	return err;
}

bool elf_in_code(const struct elf_guest *g, uint64_t addr, bool virt)
{
	size_t i;

	for (i = 0; i < g->nsegs; i++) {
		const struct elf_segment *s = &g->segs[i];
		uint64_t base = virt ? s->vaddr : s->paddr;

		if ((s->flags & PF_X) && addr >= base && addr - base < s->filesz)
			return true;
	}
	return false;
}
