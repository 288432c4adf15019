/* scenario.h: what a scenario file includes: registration and helpers. */
#ifndef GUEST_SCENARIO_H
#define GUEST_SCENARIO_H

#include <csan/abi.h>

#include "atomic.h"
#include "compiler.h"
#include "cpu.h"
#include "panic.h"
#include "printk.h"
#include "smp.h"
#include "spinlock.h"
#include "tsc.h"

/*
 * CSAN_SCENARIO - register scenario @name_ (a string literal) with a
 * one-line @summary_, its entry point @run_ (int run(void): 0 = pass) and
 * CSAN_SCENARIO_* @flags_.  The descriptor lands in CSAN_SCENARIO_SECTION,
 * where the kernel and csan-vmm (--scenario=list) both find it.
 */
#define CSAN_SCENARIO(name_, summary_, run_, flags_)                                               \
	_Static_assert(sizeof(name_) <= CSAN_SCENARIO_NAME_MAX, "scenario name too long");         \
	static const char csan_scn_name_##run_[] = name_;                                          \
	static const char csan_scn_summary_##run_[] = summary_;                                    \
	static int run_(void);                                                                     \
	static const struct csan_scenario_desc csan_scn_##run_ __used __section(                   \
		CSAN_SCENARIO_SECTION) __aligned(8) = {                                            \
		.name = (uintptr_t)csan_scn_name_##run_,                                           \
		.summary = (uintptr_t)csan_scn_summary_##run_,                                     \
		.run = (uintptr_t)run_,                                                            \
		.flags = (flags_),                                                                 \
	}

/*
 * csan_result_add - append " key=value" text to the scenario's result
 * line, which the kernel prints once after run() returns:
 *   csan-result: scenario=NAME status=pass|fail <what was added>
 * Call as csan_result_add("cpus=%u", n).  Values must not contain spaces.
 */
void csan_result_add(const char *fmt, ...) __printf(1, 2);

/* csan_seed - the seed= from the command line (0 when none was given). */
uint64_t csan_seed(void);

/* csan_scenario_name - the running scenario's name. */
const char *csan_scenario_name(void);

/* The kernel's side: pick a scenario by name and run it; never returns. */
__noreturn void scenario_run(const char *name);

#endif /* GUEST_SCENARIO_H */
