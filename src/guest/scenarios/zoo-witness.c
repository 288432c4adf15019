/* zoo-witness.c: a private plain access for race-free rows whose shared accesses are all marked. */
#include "compiler.h"
#include "csan.h"
#include "zoo.h"

/*
 * Marked accesses are never watched (KCSAN's rule), so a row whose every
 * shared access is marked sets up no watchpoint at all, and its silence
 * would look the same with a runtime that never watches.  Each CPU's
 * plain read-modify-write of its own slot is sampled like any plain
 * access and watched without ever racing: setup_watchpoints > 0 then
 * shows the runtime watched on these CPUs while the row ran.
 */
struct zoo_witness_slot {
	uint64_t count;
} __aligned(64); /* a cache line each: the slots share nothing */

static struct zoo_witness_slot zoo_witness_slots[CSAN_MAX_CPUS];

__noinline uint64_t zoo_witness(unsigned int cpu)
{
	return ++zoo_witness_slots[cpu].count;
}
