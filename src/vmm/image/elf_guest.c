/* elf_guest.c: open, validate and load a guest kernel ELF image. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "csan/abi.h"
#include "csan/pvh.h"
#include "vmm/image/bzimage.h"
#include "vmm/image/elf_guest.h"
#include "vmm/image/elf_private.h"

#define MIB (1ull << 20)

static const char *open_hint(int err)
{
	switch (err) {
	case ENOENT: return ": check the path, or leave it out to run the bundled guest";
	case EACCES:
	case EPERM: return ": make the file readable by this user";
	default: return "";
	}
}

/* A byte range of the file. */
struct file_range {
	uint64_t off, end;
	bool debug; /* a .debug_* section */
};

static bool read_at(int fd, void *buf, uint64_t len, uint64_t off)
{
	uint64_t got = 0;
	ssize_t n;

	while (got < len) {
		n = pread(fd, (char *)buf + got, (size_t)(len - got), (off_t)(off + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			errno = 0; /* the file ended early */
		if (n <= 0)
			return false;
		got += (uint64_t)n;
	}
	return true;
}

static int by_offset(const void *a, const void *b)
{
	const struct file_range *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* Whether [off, end) meets the file range @r. */
static bool meets(const struct file_range *r, uint64_t off, uint64_t end)
{
	return off < r->end && r->off < end;
}

/*
 * The runs of .debug_* sections of the image open on @fd, into *@runs
 * (malloc'd; the caller frees): each run is back-to-back DWARF sections
 * and the padding between them, in file order, inside its @size bytes,
 * holding no header, no other section and no byte of a segment.  libelf
 * reads only the headers and section names here (ELF_C_READ reads
 * lazily).  Returns how many, 0 when libelf cannot read the headers (then
 * the whole file is read, and the checks that follow say what is wrong).
 */
static size_t debug_runs(int fd, uint64_t size, struct file_range **runs)
{
	struct file_range *r = NULL, *out = NULL;
	size_t i, j, k, n = 0, nout = 0, nscn, shstrndx, phnum;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	GElf_Phdr ph;
	Elf *e;

	*runs = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE || !(e = elf_begin(fd, ELF_C_READ, NULL)))
		return 0;
	if (!gelf_getehdr(e, &eh) || elf_getshdrnum(e, &nscn) || elf_getshdrstrndx(e, &shstrndx) ||
	    elf_getphdrnum(e, &phnum) || !(r = calloc(nscn + 1, sizeof(*r))) ||
	    !(out = calloc(nscn + 1, sizeof(*out))))
		goto done;
	while ((scn = elf_nextscn(e, scn)) && gelf_getshdr(scn, &sh)) {
		const char *name = elf_strptr(e, shstrndx, sh.sh_name);

		if (sh.sh_type == SHT_NOBITS || !sh.sh_size || sh.sh_offset > size ||
		    sh.sh_size > size - sh.sh_offset || n == nscn)
			continue;
		r[n++] = (struct file_range){
			.off = sh.sh_offset,
			.end = sh.sh_offset + sh.sh_size,
			.debug = !(sh.sh_flags & SHF_ALLOC) && name &&
				 strncmp(name, ".debug_", 7) == 0,
		};
	}
	qsort(r, n, sizeof(*r), by_offset);
	for (i = 0; i < n; i = j) {
		struct file_range run = r[i];
		bool clear;

		j = i + 1;
		if (!run.debug)
			continue;
		for (; j < n && r[j].debug; j++)
			if (r[j].end > run.end)
				run.end = r[j].end;
		/* No header, no other section, no segment's bytes: those are read. */
		clear = (!nout || run.off >= out[nout - 1].end) && !meets(&run, 0, eh.e_ehsize) &&
			!meets(&run, eh.e_shoff, eh.e_shoff + (uint64_t)nscn * eh.e_shentsize) &&
			!meets(&run, eh.e_phoff, eh.e_phoff + (uint64_t)phnum * eh.e_phentsize);
		for (k = 0; clear && k < phnum; k++)
			clear = gelf_getphdr(e, (int)k, &ph) &&
				!meets(&run, ph.p_offset, ph.p_offset + ph.p_filesz);
		for (k = 0; clear && k < n; k++)
			clear = r[k].debug || !meets(&run, r[k].off, r[k].end);
		if (clear)
			out[nout++] = run;
	}
done:
	free(r);
	elf_end(e);
	if (nout)
		*runs = out;
	else
		free(out);
	return nout;
}

/*
 * The image is read into memory once, not mapped: a guest rebuilt (or
 * truncated) while csan-vmm runs would turn a read of a mapped page past
 * the new end of file into SIGBUS.  Its DWARF is left out (zeros in the
 * copy): most of a vmlinux (56 of 70 MiB of the test kernel), which
 * libdw reads from the file when symbols are needed and the loader never
 * does.  A file that changes size while it is read is refused.
 */
static int read_image(struct elf_check *c)
{
	struct file_range *skip = NULL;
	struct stat st;
	uint64_t at = 0, upto;
	size_t nskip, i = 0;
	bool ok = true;
	int e = 0;

	if (c->size > SIZE_MAX)
		return REJECT(c, -EFBIG, "the file is too large to read (%llu bytes)",
			      (unsigned long long)c->size);
	/* calloc: the skipped pages are the kernel's zero pages, never touched. */
	c->g->image = calloc(1, (size_t)c->size);
	if (!c->g->image)
		return REJECT(c, -ENOMEM, "out of memory reading %llu bytes",
			      (unsigned long long)c->size);
	nskip = debug_runs(c->g->fd, c->size, &skip);
	while (ok && at < c->size) {
		upto = i < nskip ? skip[i].off : c->size;
		ok = read_at(c->g->fd, c->g->image + at, upto - at, at);
		e = ok ? 0 : errno; /* before free() can change it */
		at = i < nskip ? skip[i++].end : c->size;
	}
	free(skip);
	if (!ok && e)
		return REJECT(c, -e, "cannot read the guest image: %s", strerror(e));
	if (!ok || fstat(c->g->fd, &st) || (uint64_t)st.st_size != c->size)
		return REJECT(c, -EIO,
			      "the file changed size while it was read (%llu bytes expected): is "
			      "the guest being rebuilt? Run again when it is done",
			      (unsigned long long)c->size);
	c->g->image_size = (size_t)c->size;
	return 0;
}

static int open_file(struct elf_check *c)
{
	struct stat st;
	int err;

	c->g->fd = open(c->g->path, O_RDONLY | O_CLOEXEC);
	if (c->g->fd < 0) {
		err = errno;
		return REJECT(c, -err, "cannot open the guest image: %s%s", strerror(err),
			      open_hint(err));
	}
	if (fstat(c->g->fd, &st)) {
		err = errno;
		return REJECT(c, -err, "cannot stat the guest image: %s", strerror(err));
	}
	if (S_ISDIR(st.st_mode))
		return REJECT(c, -EISDIR,
			      "is a directory, not a guest ELF image: name the kernel file");
	if (!S_ISREG(st.st_mode))
		return REJECT(
			c, -EINVAL,
			"is not a regular file: csan-vmm maps the guest image, so give it a file");
	if (st.st_size == 0)
		return REJECT(c, -ENOEXEC,
			      "the file is empty (0 bytes), not an ELF image: was the guest build "
			      "interrupted?");
	c->size = (uint64_t)st.st_size;
	return read_image(c);
}

/*
 * e_ident is checked by hand, before libelf sees the file, because libelf
 * calls anything with an unknown class or byte order "not ELF" and the user
 * deserves to hear which byte is wrong.
 */
static int check_ident(struct elf_check *c)
{
	const unsigned char *id = c->eh.e_ident;
	ssize_t n;

	n = pread(c->g->fd, &c->eh, sizeof(c->eh), 0);
	if (n < 0) {
		int err = errno;
		return REJECT(c, -err, "cannot read the ELF header: %s", strerror(err));
	}
	if ((size_t)n < SELFMAG || memcmp(id, ELFMAG, SELFMAG) != 0)
		return REJECT(
			c, -ENOEXEC,
			"not an ELF file (e_ident does not start with \\177ELF): give csan-vmm the "
			"kernel's ELF image (vmlinux), not a bzImage or a raw binary");
	if ((size_t)n < EI_NIDENT)
		return REJECT(c, -ENOEXEC,
			      "e_ident: the file is %zd bytes, shorter than the %d-byte ELF "
			      "identification: the file is truncated",
			      n, EI_NIDENT);
	if (id[EI_CLASS] != ELFCLASS64)
		return REJECT(c, -ENOEXEC,
			      "e_ident[EI_CLASS] is %u%s, not ELFCLASS64: csan-vmm boots 64-bit "
			      "x86-64 kernels",
			      id[EI_CLASS], id[EI_CLASS] == ELFCLASS32 ? " (ELFCLASS32)" : "");
	if (id[EI_DATA] != ELFDATA2LSB)
		return REJECT(c, -ENOEXEC,
			      "e_ident[EI_DATA] is %u%s, not ELFDATA2LSB: x86-64 kernels are "
			      "little-endian",
			      id[EI_DATA], id[EI_DATA] == ELFDATA2MSB ? " (big-endian)" : "");
	if (id[EI_VERSION] != EV_CURRENT)
		return REJECT(
			c, -ENOEXEC,
			"e_ident[EI_VERSION] is %u, not EV_CURRENT (%d): the header is corrupt",
			id[EI_VERSION], EV_CURRENT);
	if ((size_t)n < sizeof(c->eh))
		return REJECT(c, -ENOEXEC,
			      "the file is %zd bytes, shorter than the %zu-byte ELF64 header: the "
			      "file is truncated",
			      n, sizeof(c->eh));
	return 0;
}

static const char *type_name(unsigned type)
{
	switch (type) {
	case ET_NONE: return "ET_NONE";
	case ET_REL: return "ET_REL, a relocatable object";
	case ET_DYN: return "ET_DYN, a shared object or PIE";
	case ET_CORE: return "ET_CORE, a core dump";
	default: return "unknown";
	}
}

static int check_ehdr(struct elf_check *c)
{
	const Elf64_Ehdr *eh = &c->eh;
	uint64_t table = (uint64_t)eh->e_phnum * eh->e_phentsize;

	if (eh->e_machine != EM_X86_64)
		return REJECT(
			c, -ENOEXEC,
			"e_machine is %u%s, not EM_X86_64 (%d): csan-vmm runs x86-64 kernels only",
			eh->e_machine, eh->e_machine == EM_386 ? " (EM_386)" : "", EM_X86_64);
	if (eh->e_type != ET_EXEC)
		return REJECT(c, -ENOEXEC,
			      "e_type is %u (%s), not ET_EXEC: link the kernel as a static "
			      "executable at fixed physical addresses (no -pie)",
			      eh->e_type, type_name(eh->e_type));
	if (eh->e_phnum == 0)
		return REJECT(c, -ENOEXEC,
			      "e_phnum is 0: no program headers, so no PT_LOAD segment to load; "
			      "link the kernel as an executable");
	if (eh->e_phnum == PN_XNUM)
		return REJECT(c, -ENOEXEC,
			      "e_phnum is PN_XNUM (0x%x, extended numbering): a kernel has a "
			      "handful of program headers; the file is corrupt",
			      PN_XNUM);
	if (eh->e_phentsize != sizeof(Elf64_Phdr))
		return REJECT(
			c, -ENOEXEC,
			"e_phentsize is %u, not %zu (sizeof(Elf64_Phdr)): the header is corrupt",
			eh->e_phentsize, sizeof(Elf64_Phdr));
	if (!elf_in_bounds(eh->e_phoff, table, c->size))
		return REJECT(c, -ENOEXEC,
			      "e_phoff+e_phnum*e_phentsize (0x%llx + %u*%u) is past the end of the "
			      "file (0x%llx bytes): the file is truncated",
			      (unsigned long long)eh->e_phoff, eh->e_phnum, eh->e_phentsize,
			      (unsigned long long)c->size);
	return 0;
}

/*
 * The section header table is optional (a kernel may be stripped to its
 * program headers), but when there is one it must be in the file: libelf
 * would otherwise refuse the image with a message naming no field.
 */
static int check_section_table(struct elf_check *c)
{
	const Elf64_Ehdr *eh = &c->eh;
	Elf64_Shdr sh0;
	uint64_t table;

	c->shnum = eh->e_shnum;
	if (eh->e_shoff == 0)
		return 0;
	if (eh->e_shentsize != sizeof(Elf64_Shdr))
		return REJECT(
			c, -ENOEXEC,
			"e_shentsize is %u, not %zu (sizeof(Elf64_Shdr)): the header is corrupt",
			eh->e_shentsize, sizeof(Elf64_Shdr));
	if (eh->e_shnum == 0) {
		/* Extended numbering: the count is section 0's sh_size. */
		if (!elf_in_bounds(eh->e_shoff, sizeof(sh0), c->size) ||
		    pread(c->g->fd, &sh0, sizeof(sh0), (off_t)eh->e_shoff) != sizeof(sh0))
			return REJECT(c, -ENOEXEC,
				      "e_shoff (0x%llx): section header 0 is past the end of the "
				      "file (0x%llx bytes): the file is truncated",
				      (unsigned long long)eh->e_shoff, (unsigned long long)c->size);
		c->shnum = sh0.sh_size;
	}
	if (__builtin_mul_overflow(c->shnum, (uint64_t)sizeof(Elf64_Shdr), &table) ||
	    !elf_in_bounds(eh->e_shoff, table, c->size))
		return REJECT(c, -ENOEXEC,
			      "e_shoff+e_shnum*e_shentsize (0x%llx + %llu*%u) is past the end of "
			      "the file (0x%llx bytes): the file is truncated",
			      (unsigned long long)eh->e_shoff, (unsigned long long)c->shnum,
			      eh->e_shentsize, (unsigned long long)c->size);
	return 0;
}

static int begin_elf(struct elf_check *c)
{
	static bool libelf_ready;
	size_t rawsize = 0;

	if (!libelf_ready) {
		if (elf_version(EV_CURRENT) == EV_NONE)
			return REJECT(
				c, -ENOSYS,
				"libelf does not support this program's ELF version (elf_version: "
				"%s): rebuild csan-vmm against the installed libelf",
				elf_errmsg(-1));
		libelf_ready = true;
	}
	c->g->elf = elf_memory((char *)c->g->image, c->g->image_size);
	if (!c->g->elf)
		return REJECT(c, -ENOEXEC, "libelf cannot read the image (elf_memory: %s)",
			      elf_errmsg(-1));
	c->raw = (const uint8_t *)elf_rawfile(c->g->elf, &rawsize);
	if (!c->raw || rawsize != c->size)
		return REJECT(
			c, -EIO,
			"libelf cannot see the whole image (elf_rawfile: %s, %zu of %llu bytes)",
			elf_errmsg(-1), rawsize, (unsigned long long)c->size);
	return 0;
}

static bool note_is(const GElf_Nhdr *nh, const char *name, const char *want, uint32_t type)
{
	return nh->n_type == type && nh->n_namesz == strlen(want) + 1 &&
	       memcmp(name, want, nh->n_namesz) == 0;
}

static int take_pvh_note(struct elf_check *c, size_t idx, const GElf_Nhdr *nh, const void *desc)
{
	uint64_t entry;

	if (nh->n_descsz == 4) {
		uint32_t v;
		memcpy(&v, desc, sizeof(v));
		entry = v;
	} else if (nh->n_descsz == 8) {
		memcpy(&entry, desc, sizeof(entry));
	} else {
		return REJECT(c, -ENOEXEC,
			      "program header %zu: the PVH entry note (Xen, type %d "
			      "XEN_ELFNOTE_PHYS32_ENTRY) has a %u-byte descriptor, expected 4 or "
			      "8: the note is malformed",
			      idx, XEN_ELFNOTE_PHYS32_ENTRY, nh->n_descsz);
	}
	if (c->have_pvh && entry != c->g->pvh_entry)
		return REJECT(c, -ENOEXEC,
			      "program header %zu: two PVH entry notes (Xen, type %d) disagree: "
			      "0x%llx and 0x%llx",
			      idx, XEN_ELFNOTE_PHYS32_ENTRY, (unsigned long long)c->g->pvh_entry,
			      (unsigned long long)entry);
	c->have_pvh = true;
	c->g->pvh_entry = entry;
	return 0;
}

static int take_note(struct elf_check *c, size_t idx, const GElf_Nhdr *nh, const char *name,
		     const void *desc)
{
	uint32_t version;

	if (note_is(nh, name, PVH_NOTE_NAME, XEN_ELFNOTE_PHYS32_ENTRY))
		return take_pvh_note(c, idx, nh, desc);
	if (!note_is(nh, name, CSAN_NOTE_NAME, CSAN_NOTE_ABI))
		return 0;
	if (nh->n_descsz != sizeof(version))
		return REJECT(c, -EPROTO,
			      "program header %zu: the csan-vmm ABI note has a %u-byte descriptor, "
			      "expected 4 (the ABI version): rebuild the guest from the same tree",
			      idx, nh->n_descsz);
	memcpy(&version, desc, sizeof(version));
	if (c->nabi < ELF_ABI_NOTES_SHOWN)
		c->abi[c->nabi] = version;
	c->nabi++;
	if (version != CSAN_ABI_VERSION)
		c->abi_mismatch = true;
	return 0;
}

/*
 * Notes come from PT_NOTE program headers, not sections, as QEMU reads
 * them: the image that is loaded and the notes that describe it are then
 * one and the same, even after a strip.
 */
static int read_notes(struct elf_check *c, size_t idx, const GElf_Phdr *ph)
{
	size_t off, next, name_off, desc_off;
	GElf_Nhdr nh;
	Elf_Data *d;
	int err;

	if (ph->p_filesz == 0)
		return 0;
	d = elf_getdata_rawchunk(c->g->elf, (int64_t)ph->p_offset, ph->p_filesz,
				 ph->p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
	if (!d)
		return REJECT(c, -ENOEXEC,
			      "program header %zu: cannot read the PT_NOTE segment "
			      "(elf_getdata_rawchunk: %s)",
			      idx, elf_errmsg(-1));
	for (off = 0; off < d->d_size; off = next) {
		next = gelf_getnote(d, off, &nh, &name_off, &desc_off);
		if (next == 0)
			return REJECT(c, -ENOEXEC,
				      "program header %zu: malformed note at offset 0x%zx of the "
				      "PT_NOTE segment (its header, n_namesz or n_descsz runs past "
				      "p_filesz 0x%zx)",
				      idx, off, d->d_size);
		err = take_note(c, idx, &nh, (const char *)d->d_buf + name_off,
				(const uint8_t *)d->d_buf + desc_off);
		if (err)
			return err;
	}
	return 0;
}

static int check_load(struct elf_check *c, size_t idx, const GElf_Phdr *ph)
{
	if (ph->p_filesz > ph->p_memsz)
		return REJECT(c, -ENOEXEC,
			      "program header %zu: PT_LOAD p_filesz (0x%llx) is larger than "
			      "p_memsz (0x%llx): the linker script is broken",
			      idx, (unsigned long long)ph->p_filesz,
			      (unsigned long long)ph->p_memsz);
	if (ph->p_memsz == 0)
		return 0;
	if (ph->p_paddr < CSAN_KERNEL_MIN)
		return REJECT(c, -ENOEXEC,
			      "program header %zu: PT_LOAD p_paddr 0x%llx is below 1 MiB "
			      "(CSAN_KERNEL_MIN), where csan-vmm puts boot data and ACPI tables: "
			      "link the kernel at 1 MiB or above",
			      idx, (unsigned long long)ph->p_paddr);
	if (!elf_in_bounds(ph->p_paddr, ph->p_memsz, CSAN_RAM_LIMIT))
		return REJECT(c, -ENOEXEC,
			      "program header %zu: PT_LOAD p_paddr+p_memsz (0x%llx + 0x%llx) ends "
			      "above 0x%x (CSAN_RAM_LIMIT, where guest RAM stops and devices "
			      "begin): link the kernel lower",
			      idx, (unsigned long long)ph->p_paddr, (unsigned long long)ph->p_memsz,
			      CSAN_RAM_LIMIT);
	return 0;
}

static int check_phdr(struct elf_check *c, size_t idx, const GElf_Phdr *ph)
{
	struct elf_segment *s;
	int err;

	if (!elf_in_bounds(ph->p_offset, ph->p_filesz, c->size))
		return REJECT(c, -ENOEXEC,
			      "program header %zu: p_offset+p_filesz (0x%llx + 0x%llx) is past the "
			      "end of the file (0x%llx bytes): the file is truncated",
			      idx, (unsigned long long)ph->p_offset,
			      (unsigned long long)ph->p_filesz, (unsigned long long)c->size);
	if (ph->p_type == PT_NOTE)
		return read_notes(c, idx, ph);
	if (ph->p_type != PT_LOAD)
		return 0;
	err = check_load(c, idx, ph);
	if (err || ph->p_memsz == 0)
		return err;
	s = &c->g->segs[c->g->nsegs++];
	s->paddr = ph->p_paddr;
	s->vaddr = ph->p_vaddr;
	s->filesz = ph->p_filesz;
	s->memsz = ph->p_memsz;
	s->offset = ph->p_offset;
	s->flags = ph->p_flags;
	s->phdr = (unsigned)idx;
	return 0;
}

static int by_paddr(const void *a, const void *b)
{
	const struct elf_segment *x = a, *y = b;

	if (x->paddr != y->paddr)
		return x->paddr < y->paddr ? -1 : 1;
	return x->phdr < y->phdr ? -1 : x->phdr > y->phdr;
}

/*
 * Sorted by start, two segments overlap only if some neighbours do, so one
 * pass finds it.  Ends cannot overflow: check_load bounded them.
 */
static int check_overlaps(struct elf_check *c)
{
	struct elf_segment *s = c->g->segs;
	size_t i;

	qsort(s, c->g->nsegs, sizeof(*s), by_paddr);
	for (i = 1; i < c->g->nsegs; i++) {
		const struct elf_segment *a = &s[i - 1], *b = &s[i];

		if (b->paddr >= a->paddr + a->memsz)
			continue;
		if (a->phdr > b->phdr) {
			const struct elf_segment *t = a;
			a = b;
			b = t;
		}
		return REJECT(c, -ENOEXEC,
			      "program header %u [0x%llx, 0x%llx) and program header %u [0x%llx, "
			      "0x%llx): PT_LOAD segments overlap in physical memory: fix the "
			      "linker script",
			      a->phdr, (unsigned long long)a->paddr,
			      (unsigned long long)(a->paddr + a->memsz), b->phdr,
			      (unsigned long long)b->paddr,
			      (unsigned long long)(b->paddr + b->memsz));
	}
	c->g->image_start = s[0].paddr;
	for (i = 0; i < c->g->nsegs; i++)
		if (s[i].paddr + s[i].memsz > c->g->image_end)
			c->g->image_end = s[i].paddr + s[i].memsz;
	return 0;
}

static int read_program_headers(struct elf_check *c)
{
	size_t i, n = c->eh.e_phnum;
	GElf_Phdr ph;
	int err;

	c->g->segs = calloc(n, sizeof(*c->g->segs));
	if (!c->g->segs)
		return REJECT(c, -ENOMEM, "out of memory for %zu program headers", n);
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(c->g->elf, (int)i, &ph))
			return REJECT(c, -ENOEXEC,
				      "program header %zu: cannot read it (gelf_getphdr: %s)", i,
				      elf_errmsg(-1));
		err = check_phdr(c, i, &ph);
		if (err)
			return err;
	}
	if (c->g->nsegs == 0)
		return REJECT(c, -ENOEXEC,
			      "no PT_LOAD segment with p_memsz > 0 among the %zu program headers: "
			      "there is nothing to load",
			      n);
	return check_overlaps(c);
}

static int abi_mismatch(struct elf_check *c)
{
	char list[ELF_ABI_NOTES_SHOWN * 24 + 32] = "";
	size_t i, used = 0;

	if (c->nabi == 1)
		return REJECT(c, -EPROTO,
			      "guest ABI version %u, this csan-vmm speaks ABI %d: rebuild the "
			      "guest from the same tree",
			      c->abi[0], CSAN_ABI_VERSION);
	for (i = 0; i < c->nabi && i < ELF_ABI_NOTES_SHOWN; i++)
		used += snprintf(list + used, sizeof(list) - used, "%sABI version %u",
				 i ? ", " : "", c->abi[i]);
	if (c->nabi > ELF_ABI_NOTES_SHOWN)
		snprintf(list + used, sizeof(list) - used, " and %zu more",
			 c->nabi - ELF_ABI_NOTES_SHOWN);
	return REJECT(c, -EPROTO,
		      "%zu csan-vmm ABI notes (%s), this csan-vmm speaks ABI %d only: rebuild the "
		      "guest from the same tree",
		      c->nabi, list, CSAN_ABI_VERSION);
}

/*
 * A wrong ABI version is reported first: for a csan guest from another
 * tree it is the one thing to fix.  A kernel with neither note is most
 * likely not a PVH kernel at all, so that comes before the missing ABI.
 */
static int check_notes(struct elf_check *c)
{
	if (c->abi_mismatch)
		return abi_mismatch(c);
	if (!c->have_pvh && c->symbols_only)
		return 0;
	if (!c->have_pvh)
		return REJECT(c, -ENOEXEC,
			      "no PVH entry note (name \"%s\", type %d XEN_ELFNOTE_PHYS32_ENTRY) "
			      "in any PT_NOTE segment: this is not a PVH kernel; csan-vmm boots "
			      "ELF kernels the way qemu -kernel does (for Linux: CONFIG_PVH=y, or "
			      "boot arch/x86/boot/bzImage instead)",
			      PVH_NOTE_NAME, XEN_ELFNOTE_PHYS32_ENTRY);
	if (!elf_in_code(c->g, c->g->pvh_entry, false))
		return REJECT(c, -ENOEXEC,
			      "PVH entry 0x%llx (Xen note type %d) is not in the file bytes of any "
			      "executable (PF_X) PT_LOAD segment: the entry note or the linker "
			      "script is wrong",
			      (unsigned long long)c->g->pvh_entry, XEN_ELFNOTE_PHYS32_ENTRY);
	/* Without the note it is a plain PVH kernel (Linux): profile.c decides. */
	c->g->abi_version = c->nabi ? CSAN_ABI_VERSION : 0;
	return 0;
}

static int open_checked(const char *path, struct elf_guest *g, bool symbols_only, char *why,
			size_t whylen)
{
	struct elf_check c = { .g = g, .why = why, .whylen = whylen, .symbols_only = symbols_only };
	int err;

	memset(g, 0, sizeof(*g));
	g->fd = -1;
	if (why && whylen)
		why[0] = '\0';
	g->path = strdup(path);
	if (!g->path)
		return elf_say(why, whylen, path, -ENOMEM, "out of memory");
	err = open_file(&c);
	if (err)
		goto fail;
	err = check_ident(&c);
	if (err)
		goto fail;
	err = check_ehdr(&c);
	if (err)
		goto fail;
	err = check_section_table(&c);
	if (err)
		goto fail;
	err = begin_elf(&c);
	if (err)
		goto fail;
	err = read_program_headers(&c);
	if (err)
		goto fail;
	err = check_notes(&c);
	if (err)
		goto fail;
	err = elf_scenarios_read(&c);
	if (err)
		goto fail;
	return 0;
fail:
	elf_guest_close(g);
	return err;
}

int elf_guest_open(const char *path, struct elf_guest *g, char *why, size_t whylen)
{
	int err = open_checked(path, g, false, why, whylen);

	if (!err) {
		g->sym_path = strdup(path);
		if (!g->sym_path) {
			elf_guest_close(g);
			return elf_say(why, whylen, path, -ENOMEM, "out of memory");
		}
	}
	return err;
}

int elf_guest_open_vmlinux(const char *path, struct elf_guest *g, char *why, size_t whylen)
{
	return open_checked(path, g, true, why, whylen);
}

/* The first segment (in paddr order) that does not fit in @ram_size, or NULL. */
static const struct elf_segment *seg_outside(const struct elf_guest *g, uint64_t ram_size)
{
	size_t i;

	for (i = 0; i < g->nsegs; i++)
		if (!elf_in_bounds(g->segs[i].paddr, g->segs[i].memsz, ram_size))
			return &g->segs[i];
	return NULL;
}

int elf_guest_check_fits(const struct elf_guest *g, uint64_t ram_size, char *why, size_t whylen)
{
	const struct elf_segment *s = seg_outside(g, ram_size);
	uint64_t need, hint;

	if (!s)
		return 0;
	/*
	 * Suggest the next power of two above the image plus 16 MiB, so the
	 * guest has room for its heap and stacks, capped at the most -m takes.
	 */
	need = (g->image_end + MIB - 1) / MIB;
	for (hint = 1; hint < need + 16; hint <<= 1)
		;
	if (hint > CSAN_RAM_LIMIT / MIB)
		hint = CSAN_RAM_LIMIT / MIB;
	return elf_say(why, whylen, g->path, -EFBIG,
		       "program header %u (PT_LOAD [0x%llx, 0x%llx)) ends past the guest's RAM "
		       "(0x%llx bytes, %llu MiB): the image needs at least %llu MiB; give the "
		       "guest more, e.g. -m %lluM",
		       s->phdr, (unsigned long long)s->paddr,
		       (unsigned long long)(s->paddr + s->memsz), (unsigned long long)ram_size,
		       (unsigned long long)(ram_size / MIB), (unsigned long long)need,
		       (unsigned long long)hint);
}

int elf_guest_load(const struct elf_guest *g, uint8_t *ram, uint64_t ram_size, char *why,
		   size_t whylen)
{
	const struct elf_segment *s;
	const uint8_t *raw;
	size_t i, rawsize = 0;
	int err;

	if (!ram || !g->elf)
		return elf_say(why, whylen, g->path ? g->path : "(no image)", -EINVAL,
			       "nothing to load (no guest RAM or no open image)");
	err = elf_guest_check_fits(g, ram_size, why, whylen);
	if (err)
		return err;
	raw = (const uint8_t *)elf_rawfile(g->elf, &rawsize);
	/* Every check comes before the first write, so a failure leaves RAM untouched. */
	for (i = 0; i < g->nsegs; i++) {
		s = &g->segs[i];
		if (!raw || !elf_in_bounds(s->offset, s->filesz, rawsize))
			return elf_say(why, whylen, g->path, -EIO,
				       "program header %u: its file bytes are no longer in the "
				       "image (elf_rawfile: %zu bytes): did the file change?",
				       s->phdr, rawsize);
	}
	for (i = 0; i < g->nsegs; i++) {
		s = &g->segs[i];
		memcpy(ram + s->paddr, raw + s->offset, s->filesz);
		memset(ram + s->paddr + s->filesz, 0, s->memsz - s->filesz);
	}
	return 0;
}

const struct elf_scenario *elf_guest_find_scenario(const struct elf_guest *g, const char *name)
{
	size_t i;

	if (!name)
		return NULL;
	for (i = 0; i < g->nscenarios; i++)
		if (strcmp(g->scenarios[i].name, name) == 0)
			return &g->scenarios[i];
	return NULL;
}

void elf_guest_close(struct elf_guest *g)
{
	if (g->elf)
		elf_end(g->elf);
	if (g->fd >= 0)
		close(g->fd);
	free(g->image);
	free(g->path);
	free(g->segs);
	free(g->scenarios);
	free(g->sym_path);
	if (g->bz) {
		bzimage_close(g->bz);
		free(g->bz);
	}
	memset(g, 0, sizeof(*g));
	g->fd = -1;
}
