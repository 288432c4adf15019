/* cu_table.h: each DWARF CU's functions by address (sym.c's helper). */
#ifndef CSAN_WATCH_CU_TABLE_H
#define CSAN_WATCH_CU_TABLE_H

#include <elfutils/libdw.h>

/*
 * libdw finds a CU by address (aranges), but the function inside it only
 * by walking the CU's top-level DIEs, and dwarf_siblingof has to parse
 * each function's whole body to step over it: on a vmlinux, whose CUs
 * pull in thousands of header functions, types and variables, that walk
 * was nearly all of a lookup.  The table indexes each CU's function
 * ranges on its first lookup and keeps them.  Not thread-safe by itself:
 * struct sym holds its lock around it.
 */
struct cu_table;

/* cu_table_new - an empty table in @out.  Returns 0 or -ENOMEM. */
int cu_table_new(struct cu_table **out);

/* cu_table_free - release @t; NULL is a no-op. */
void cu_table_free(struct cu_table *t);

/*
 * cu_table_fn_at - the top-level DW_TAG_subprogram of @cudie whose code
 * holds @pc (a DWARF address), into @out, indexing the CU first if it is
 * new.  Returns 1 if found, 0 if no function of the CU holds @pc, or
 * -ENOMEM (the caller can still walk the CU itself).
 */
int cu_table_fn_at(struct cu_table *t, Dwarf_Die *cudie, Dwarf_Addr pc, Dwarf_Die *out);

#endif /* CSAN_WATCH_CU_TABLE_H */
