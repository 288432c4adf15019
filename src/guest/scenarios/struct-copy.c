/* struct-copy.c: zoo: a struct copied whole while another CPU stores one of its fields. */
#include <csan/abi.h>

#include "csan.h"
#include "kstring.h"
#include "scenario.h"
#include "zoo.h"

/*
 * Expected (../shared/ZOO.md), in both modes: a data race with both
 * stacks.  Every CPU but the first copies struct_copy_obj whole (one
 * 32-byte range read, as the compiler instruments an aggregate copy);
 * the first stores one 8-byte field with a plain aligned store.  That
 * store is taken as marked by default (csan.assume_plain_writes_atomic=1),
 * so it is never watched itself; the race is found when it runs into the
 * copier's 32-byte watchpoint, which counts as a value change because
 * values wider than 8 bytes are not compared (as in KCSAN).  In hw mode
 * the 32-byte watch needs several debug registers.
 */

struct struct_copy_obj {
	uint64_t seq;
	uint64_t a, b, c;
};

static struct struct_copy_obj struct_copy_obj __attribute__((aligned(64)));

static __noinline void struct_copy_update(uint64_t v)
{
	struct_copy_obj.b = v;
}

/* Each copier's own snapshot: a copy the compiler cannot take apart. */
static struct struct_copy_obj struct_copy_snap[CSAN_MAX_CPUS];

static __noinline uint64_t struct_copy_snapshot(unsigned int cpu)
{
	struct_copy_snap[cpu] = struct_copy_obj;
	return struct_copy_snap[cpu].b;
}

static uint64_t struct_copy_step(unsigned int cpu, uint64_t i)
{
	if (cpu == 0) {
		struct_copy_update(i);
		return 0;
	}
	return struct_copy_snapshot(cpu);
}

static const struct zoo_row struct_copy_row = {
	.step = struct_copy_step,
	.min_cpus = 2,
	.budget_ms = 20000,
	.expect = { .soft = ZOO_DATA_RACE, .hw = ZOO_DATA_RACE },
	.also_kinds = ZOO_ONE_SIDED,
};

ZOO_SCENARIO("struct-copy", "zoo: a struct copied whole while another CPU stores one of its fields",
	     struct_copy_row);
