/*
 * arm_budget.h: which of a guest sanitizer's watchpoints the host backs
 * with debug registers when backing every one would cost too much.
 *
 * Arming and disarming make every vCPU load its registers: tens of
 * microseconds on KVM, milliseconds nested under TCG.  The budget is a
 * token bucket: arm+disarm may take @pct percent of wall time, with at
 * most @burst_ms saved up.  First come, first served spent it on whatever
 * KCSAN happened to watch most (one task's own objects, a pointer every
 * CPU reads and nobody writes) and left nothing for the variable that
 * races: in Linux's test_unknown_origin, all nine watchpoints on the
 * racing variable fell over the budget in a run that backed 553 others.
 *
 * So the bucket's lower half is kept for the watchpoints most likely to
 * catch a race: on shared data, and backed fewer than ARM_BUDGET_FAVOURED
 * times lately (the count halves every ARM_BUDGET_HALFLIFE_MS, and a
 * watch that caught an access clears it).  Shared is an address watched
 * from two vCPUs or more (one task's objects are watched from one), or
 * one the caller knows every CPU reaches: a kernel's static data, where
 * the other side may be uninstrumented code or an interrupt handler on
 * the watcher's own CPU, which set up no watchpoints of their own.
 * Other watchpoints are backed only while the bucket is over half full.
 * When the budget is not short (KVM) every watchpoint is backed.
 *
 * Not thread-safe: the caller holds its own lock around every call.
 */
#ifndef CSAN_WATCH_ARM_BUDGET_H
#define CSAN_WATCH_ARM_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

/* Addresses remembered, direct-mapped: a newer address takes an older's entry. */
#define ARM_BUDGET_TABLE       1024
#define ARM_BUDGET_FAVOURED    4
#define ARM_BUDGET_HALFLIFE_MS 1000

struct arm_interest {
	uint64_t addr;
	uint64_t cpus;	   /* vCPUs seen watching it, one bit each (id mod 64) */
	uint64_t stamp_ns; /* when @backed last halved */
	uint32_t backed;
};

struct arm_budget {
	int64_t tokens_ns; /* arm+disarm time still allowed; below zero after a slow one */
	int64_t burst_ns;
	uint64_t at_ns; /* when the bucket was last filled; 0 before the first call */
	unsigned pct;
	struct arm_interest seen[ARM_BUDGET_TABLE];
};

enum arm_verdict {
	ARM_NO,	      /* over the budget: left to the guest's own watchpoint */
	ARM_YES,      /* the budget is not short */
	ARM_FAVOURED, /* from the reserve: shared and rarely backed */
};

/* arm_budget_init - an empty table and a full bucket of @burst_ms, refilled at @pct%. */
void arm_budget_init(struct arm_budget *b, unsigned pct, unsigned burst_ms);

/*
 * arm_budget_admit - a watchpoint on @addr set up by vCPU @cpu at
 * @now_ns (monotonic): note it, and say whether to back it.  @global: the
 * caller knows @addr to be shared (static data).  A yes counts as one
 * backing of @addr; charge its cost with arm_budget_charge.
 */
enum arm_verdict arm_budget_admit(struct arm_budget *b, uint64_t addr, unsigned cpu, bool global,
				  uint64_t now_ns);

/* arm_budget_charge - arming or disarming took @ns of wall time. */
void arm_budget_charge(struct arm_budget *b, uint64_t ns);

/* arm_budget_caught - a backed watch of @addr caught an access: keep it favoured. */
void arm_budget_caught(struct arm_budget *b, uint64_t addr);

#endif /* CSAN_WATCH_ARM_BUDGET_H */
