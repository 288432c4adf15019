/* symtab.h: the ELF symbol table indexed by address and by name (sym.c's helper). */
#ifndef CSAN_WATCH_SYMTAB_H
#define CSAN_WATCH_SYMTAB_H

#include <stdint.h>

#include <elfutils/libdwfl.h>

/*
 * libdwfl looks an address's symbol up by scanning the whole symbol table
 * (dwfl_module_addrinfo), which is nothing on the bundled guest and most
 * of a lookup's time on a vmlinux with 100,000 symbols; and it has no
 * lookup by name at all.  This index is built once per ELF.  Names point
 * into libelf's string table and live as long as the Dwfl.  Not
 * thread-safe by itself: struct sym holds its lock around it.
 */
struct symtab;

/*
 * symtab_build - index the symbols of @mod into @out.  Returns 0, or
 * -ENOMEM.  An ELF without symbols gives an empty index.
 */
int symtab_build(Dwfl_Module *mod, struct symtab **out);

/* symtab_free - release @t; NULL is a no-op. */
void symtab_free(struct symtab *t);

/*
 * symtab_at - the sized symbol holding @addr: the innermost (the highest
 * start), then a global one before a weak or local one, then the
 * smallest, then the first in the table, as libdwfl chooses.
 * Returns its name with its start and size, or NULL when no sized symbol
 * holds @addr (the caller then asks libdwfl, which also knows labels
 * without a size).
 */
const char *symtab_at(const struct symtab *t, uint64_t addr, uint64_t *start, uint64_t *size);

/*
 * symtab_by_name - the symbol called @name: its start in @addr, its size
 * in @size.  Of several (static functions of different files), the one
 * whose size fits @size_hint best (see sym_addr_of).  Returns 0 or
 * -ENOENT.
 */
int symtab_by_name(const struct symtab *t, const char *name, uint64_t size_hint, uint64_t *addr,
		   uint64_t *size);

#endif /* CSAN_WATCH_SYMTAB_H */
