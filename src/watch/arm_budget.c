/* arm_budget.c: the time budget for backing watchpoints, and who gets its reserve. */
#include "config.h"

#include <string.h>

#include "watch/arm_budget.h"

#define NS_PER_MS 1000000ull

void arm_budget_init(struct arm_budget *b, unsigned pct, unsigned burst_ms)
{
	memset(b, 0, sizeof(*b));
	b->pct = pct;
	b->burst_ns = (int64_t)(burst_ms * NS_PER_MS);
	b->tokens_ns = b->burst_ns;
}

/* Fibonacci hashing of the address, without its low bits (one word, one entry). */
static struct arm_interest *entry_of(struct arm_budget *b, uint64_t addr)
{
	uint64_t h = (addr >> 3) * 0x9e3779b97f4a7c15ull;

	_Static_assert((ARM_BUDGET_TABLE & (ARM_BUDGET_TABLE - 1)) == 0, "a power of two");
	return &b->seen[h >> (64 - __builtin_ctz(ARM_BUDGET_TABLE))];
}

/* @addr's entry, taken over if another address held it, its count decayed to @now. */
static struct arm_interest *interest(struct arm_budget *b, uint64_t addr, uint64_t now)
{
	const uint64_t half = ARM_BUDGET_HALFLIFE_MS * NS_PER_MS;
	struct arm_interest *e = entry_of(b, addr);
	uint64_t n;

	if (e->addr != addr || !e->stamp_ns)
		*e = (struct arm_interest){ .addr = addr, .stamp_ns = now };
	if (now > e->stamp_ns) {
		n = (now - e->stamp_ns) / half;
		e->backed = n >= 32 ? 0 : e->backed >> n;
		e->stamp_ns += n * half;
	}
	return e;
}

static void refill(struct arm_budget *b, uint64_t now)
{
	if (b->at_ns && now > b->at_ns) {
		b->tokens_ns += (int64_t)((now - b->at_ns) * b->pct / 100);
		if (b->tokens_ns > b->burst_ns)
			b->tokens_ns = b->burst_ns;
	}
	if (now > b->at_ns)
		b->at_ns = now;
}

enum arm_verdict arm_budget_admit(struct arm_budget *b, uint64_t addr, unsigned cpu, bool global,
				  uint64_t now_ns)
{
	struct arm_interest *e;
	enum arm_verdict v = ARM_NO;

	if (!now_ns)
		now_ns = 1; /* 0 means "never" in the table */
	refill(b, now_ns);
	e = interest(b, addr, now_ns);
	e->cpus |= 1ull << (cpu % 64);
	if (b->tokens_ns * 2 >= b->burst_ns)
		v = ARM_YES;
	else if (b->tokens_ns > 0 && (global || (e->cpus & (e->cpus - 1))) &&
		 e->backed < ARM_BUDGET_FAVOURED)
		v = ARM_FAVOURED;
	if (v != ARM_NO)
		e->backed++;
	return v;
}

void arm_budget_charge(struct arm_budget *b, uint64_t ns)
{
	b->tokens_ns -= (int64_t)ns;
}

void arm_budget_caught(struct arm_budget *b, uint64_t addr)
{
	struct arm_interest *e = entry_of(b, addr);

	if (e->addr == addr)
		e->backed = 0;
}
