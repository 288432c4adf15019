/* elf_deps.h: the shared libraries and interpreter a dynamically linked ELF file needs. */
#ifndef CSAN_VMM_ELF_DEPS_H
#define CSAN_VMM_ELF_DEPS_H

#include <stddef.h>

/* One file the guest needs: where it is on the host, where it goes in the guest. */
struct elf_dep {
	char *host;
	char *guest;
};

/* What elf_deps_collect found, in the order found; no guest path twice. */
struct elf_deps {
	struct elf_dep *v;
	size_t n, cap;
	char **seen; /* host files already read (their own needs collected) */
	size_t nseen, capseen;
};

/*
 * elf_deps_collect - when @path is a dynamically linked ELF file, add to
 * @d its interpreter (PT_INTERP, at the path it names) and the libraries
 * its DT_NEEDED entries name, and theirs, recursively.  A library is
 * looked up as glibc's loader does, without its cache: the object's
 * DT_RPATH (when it has no DT_RUNPATH), its DT_RUNPATH, then Debian's
 * multiarch and standard directories; $ORIGIN is the object's host
 * directory; a candidate of another ELF class or machine is passed over.
 * A library goes in the guest at the path it was found at.  No program
 * is run (no ldd).  Anything not ELF, or a static ELF, adds nothing.
 * Returns 0; -ENOENT when a library cannot be found, -ENOMEM, or -EIO for
 * a malformed ELF file, each with a message naming the file in @why.
 */
int elf_deps_collect(struct elf_deps *d, const char *path, char *why, size_t whylen);

/* elf_deps_free - release @d's contents. */
void elf_deps_free(struct elf_deps *d);

#endif /* CSAN_VMM_ELF_DEPS_H */
