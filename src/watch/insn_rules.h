/* insn_rules.h: insn.c's per-instruction access rules, for other decoders of guest code. */
#ifndef CSAN_WATCH_INSN_RULES_H
#define CSAN_WATCH_INSN_RULES_H

#include <stdbool.h>

#include <capstone/capstone.h>

#include "watch/insn.h"

/*
 * Capstone-level helpers shared by the decoders in src/watch/ (insn.c at
 * a data trap, sample_sites.c over a kernel's whole text), so that what
 * counts as a read, a write or no access at all is decided in one place.
 * Callers decode with CS_OPT_DETAIL on.
 */

/*
 * insn_touches_no_memory - whether capstone instruction id @id has a
 * memory operand that it neither reads nor writes (lea, nop, prefetch).
 */
bool insn_touches_no_memory(unsigned id);

/* insn_operand_access - fill @a with how @insn accesses its memory operand @op. */
void insn_operand_access(const cs_insn *insn, const cs_x86_op *op, struct insn_access *a);

/*
 * insn_stack_direction - the implicit stack access of capstone id @id:
 * 1 write (push, call, enter), -1 read (pop, ret, leave), 0 none.
 */
int insn_stack_direction(unsigned id);

/* insn_is_locked_rmw - a LOCK prefix, or XCHG with memory (implicitly locked). */
bool insn_is_locked_rmw(const cs_insn *insn);

/*
 * Capstone 4 is not safe for two threads decoding at once, even on
 * handles of their own (see insn.c): every decoder in the process takes
 * this lock around its cs_open .. cs_close.
 */
void insn_capstone_lock(void);
void insn_capstone_unlock(void);

#endif /* CSAN_WATCH_INSN_RULES_H */
