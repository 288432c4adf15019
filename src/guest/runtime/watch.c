/* watch.c: the slow paths: set up a watchpoint and watch, or run into one. */
#include "internal.h"

/*
 * KCSAN's algorithm (Linux kernel/kcsan/core.c), with its trade-offs:
 * sampled soft watchpoints find races between accesses that really
 * overlap in time, with no false positives from lock-free code that is
 * correctly marked, at the price of missing most races on any one run.
 * Functions here are noinline and csan_-prefixed: they are the rare
 * path, and a report's stack must be able to leave them out by name.
 */

uint64_t csan_watchpoints[CSAN_WATCHPOINT_SLOTS];

/* Claim a free entry among the ones this address may use, or NULL. */
static uint64_t *insert_watchpoint(uintptr_t addr, size_t size, bool is_write)
{
	const size_t slot = csan_wp_slot(addr);
	const uint64_t encoded = csan_wp_encode(addr, size, is_write);
	unsigned int i;

	for (i = 0; i < CSAN_NUM_SLOTS; i++) {
		uint64_t *wp = &csan_watchpoints[csan_wp_insert_index(slot, i)];
		uint64_t expect = CSAN_WP_INVALID;

		if (__atomic_compare_exchange_n(wp, &expect, encoded, false, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return wp;
	}
	return NULL;
}

/*
 * The watcher takes its own watchpoint back.  True if nobody consumed it
 * meanwhile.  The entry stays CONSUMED, so no one can claim it (or its
 * report buffer) until remove_watchpoint().
 */
static bool consume_watchpoint(uint64_t *wp)
{
	return __atomic_exchange_n(wp, CSAN_WP_CONSUMED, __ATOMIC_ACQ_REL) != CSAN_WP_CONSUMED;
}

static void remove_watchpoint(uint64_t *wp)
{
	__atomic_store_n(wp, CSAN_WP_INVALID, __ATOMIC_RELEASE);
}

static void reset_skip(struct csan_cpu *c)
{
	uint32_t skip = csan_knob(skip_watch);

	/* Uniform in [1, skip_watch], as KCSAN's randomized skip. */
	c->skip = skip ? (long)(skip - csan_random(c, skip)) : 0;
}

/* The watch: KCSAN's delay, randomized, longer-skewed for compound and asserts. */
static void delay_access(struct csan_cpu *c, int type)
{
	uint32_t delay = csan_watch_us();
	unsigned int skew = (type & (CSAN_ACCESS_COMPOUND | CSAN_ACCESS_ASSERT)) ? 1 : 0;

	if (delay >> skew)
		delay -= csan_random(c, delay >> skew);
	csan_port_udelay(delay);
}

/*
 * Another CPU (or an interrupt handler) ran into a watchpoint: take it,
 * so its watcher knows, and leave this side's description for the
 * watcher's report.  Until the watchpoint is consumed, nothing here may
 * take long: the watcher's delay is running out.
 */
__noinline void csan_found_watchpoint(const volatile void *ptr, size_t size, int type, uintptr_t ip,
				      uintptr_t anchor_fp, uint64_t *wp, uint64_t encoded)
{
	struct csan_ctx *ctx = get_ctx();
	bool consumed;

	if (!csan_is_enabled(ctx))
		return;
	/*
	 * ASSERT_EXCLUSIVE_BITS judges by value changes under its mask, which
	 * only the watcher sees; running into another watchpoint with a mask
	 * set would report changes of bits that are allowed to change.
	 */
	if (ctx->access_mask)
		return;
	consumed = __atomic_compare_exchange_n(wp, &encoded, CSAN_WP_CONSUMED, false,
					       __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
	if (consumed)
		csan_report_set_info(ptr, size, type, ip, anchor_fp,
				     (size_t)(wp - csan_watchpoints), encoded);
	else
		/* The watcher finished first, or another access beat this one. */
		csan_counter_inc(CSAN_COUNTER_REPORT_RACES);
	csan_counter_inc((type & CSAN_ACCESS_ASSERT) ? CSAN_COUNTER_ASSERT_FAILURES
						     : CSAN_COUNTER_DATA_RACES);
}

/* The fast path found something unusual: the whole check (internal.h). */
__noinline void csan_check_access_slow(const volatile void *ptr, size_t size, int type,
				       uintptr_t ip, uintptr_t anchor_fp)
{
	check_access_full(ptr, size, type, ip, anchor_fp);
}

/*
 * The watchpoint was consumed but no change was seen ("maybe"): decide,
 * as KCSAN does, whether that still makes a report.
 */
static enum csan_value_change judge_consumed(const struct csan_watch *w)
{
	if (w->change != CSAN_VALUE_CHANGE_MAYBE)
		return w->change;
	/* A masked assertion only cares about its bits: no change, no race. */
	if (w->mask)
		return CSAN_VALUE_CHANGE_FALSE;
	/* Values are not compared above 8 bytes, and an assertion is absolute. */
	if (w->size > 8 || (w->type & CSAN_ACCESS_ASSERT))
		return CSAN_VALUE_CHANGE_TRUE;
	return CSAN_VALUE_CHANGE_MAYBE;
}

/*
 * Four debug registers, each an aligned span of at most 8 bytes: the
 * most of one access the host can watch at once.
 */
#define CSAN_HW_REACH 32

/*
 * Which bytes of a wide access the debug registers watch.  The soft
 * watchpoint covers the whole access whatever happens here, so every
 * instrumented access that runs into it is found in hw mode as in soft
 * mode; the registers are for what it cannot see (uninstrumented code,
 * this CPU's interrupt handlers), which may touch any byte.  Always the
 * first 32 bytes left the rest of a 64-byte struct (its last fields, say)
 * never hardware-watched.  So a wide access is cut into 32-byte windows
 * on the 8-byte grid (each four aligned registers' worth), and each
 * watch backs one of them, drawn at random: every byte of the access is
 * hardware-watched in one watch of every ceil(size / 32) on average,
 * with no state kept between watches.  An access of 32 bytes or fewer
 * is asked for whole (the host covers what its free registers reach).
 * Returns the bytes asked for, from *@addr.
 */
static size_t hw_window(struct csan_cpu *c, const struct csan_watch *w, uintptr_t *addr)
{
	const uintptr_t start = (uintptr_t)w->ptr, end = start + w->size;
	const uintptr_t grid = start & ~(uintptr_t)7;
	const uint32_t windows = (uint32_t)((end - grid + CSAN_HW_REACH - 1) / CSAN_HW_REACH);
	uintptr_t from, to;

	*addr = start;
	if (w->size <= CSAN_HW_REACH)
		return w->size;
	from = grid + (uintptr_t)csan_random(c, windows) * CSAN_HW_REACH;
	to = from + CSAN_HW_REACH;
	*addr = from > start ? from : start;
	return (to < end ? to : end) - *addr;
}

/*
 * Hardware-watchpoint mode: have the host back this watch with debug
 * registers on every CPU for the length of the delay, so that accesses
 * no soft watchpoint sees (uninstrumented code, an interrupt handler on
 * this CPU) trap as well.  The soft watchpoint stays in place: the two
 * see different things and the host merges what both saw.
 */
static void hw_arm(struct csan_cpu *c, struct csan_watch *w)
{
	uintptr_t addr;
	size_t covered = hw_window(c, w, &addr);
	uint32_t status = csan_port_hw_arm(addr, &covered, w->type, &w->hw_ticket);

	switch (status) {
	case CSAN_HW_ARMED:
		csan_counter_inc(CSAN_COUNTER_HW_ARMED);
		/* A window of it, or too few free registers: the rest is soft only. */
		if (covered < w->size)
			csan_counter_inc(CSAN_COUNTER_HW_PARTIAL);
		break;
	case CSAN_HW_NO_SLOT: csan_counter_inc(CSAN_COUNTER_HW_NO_SLOT); break;
	case CSAN_HW_UNWATCHABLE: csan_counter_inc(CSAN_COUNTER_HW_PARTIAL); break;
	default: break; /* CSAN_HW_OFF: the host left hw mode meanwhile */
	}
}

static void hw_disarm(struct csan_watch *w)
{
	if (!w->hw_ticket)
		return;
	csan_port_hw_disarm(w->hw_ticket, &w->hw);
	csan_counter_add(CSAN_COUNTER_HW_HITS, w->hw.hits);
}

/*
 * The watch itself, with the watchpoint in place; see csan_setup_watchpoint.
 * Returns false if the entry must never be reused.
 */
static bool watch(struct csan_cpu *c, struct csan_ctx *ctx, uint64_t *wp, struct csan_watch *w,
		  bool hw)
{
	const bool is_assert = (w->type & CSAN_ACCESS_ASSERT) != 0;
	uint64_t diff;

	/* Read first, so a change by code the compiler did not instrument shows too. */
	w->old_value = csan_read_value(w->ptr, w->size);
	/* Armed after the read and disarmed before the re-read: the watcher's own reads never trap. */
	if (hw)
		hw_arm(c, w);
	delay_access(c, w->type);
	hw_disarm(w);
	w->new_value = csan_read_value(w->ptr, w->size);
	w->mask = ctx->access_mask;
	diff = w->old_value ^ w->new_value;
	if (w->mask)
		diff &= w->mask;
	w->change = diff ? CSAN_VALUE_CHANGE_TRUE : CSAN_VALUE_CHANGE_MAYBE;

	if (!consume_watchpoint(wp)) {
		w->change = judge_consumed(w);
		/* Both sides of a failed assertion count it, as in KCSAN. */
		if (is_assert && w->change == CSAN_VALUE_CHANGE_TRUE)
			csan_counter_inc(CSAN_COUNTER_ASSERT_FAILURES);
		return csan_report_known_origin(w);
	}
	/* Nobody ran into the soft watchpoint, but a debug register caught someone. */
	if (w->hw.hits) {
		w->change = judge_consumed(w);
		if (is_assert && w->change == CSAN_VALUE_CHANGE_TRUE)
			csan_counter_inc(CSAN_COUNTER_ASSERT_FAILURES);
		return csan_report_hw_origin(w);
	}
	if (w->change == CSAN_VALUE_CHANGE_TRUE) {
		csan_counter_inc(CSAN_COUNTER_RACES_UNKNOWN_ORIGIN);
		if (is_assert)
			csan_counter_inc(CSAN_COUNTER_ASSERT_FAILURES);
		if (csan_knob(report_unknown_origin) || is_assert)
			csan_report_unknown_origin(w);
		else
			csan_counter_inc(CSAN_COUNTER_REPORTS_SKIPPED);
	}
	return true;
}

/*
 * This access was picked: watch its address for a while and see whether
 * another access runs into the watchpoint or the value changes.
 */
__noinline void csan_setup_watchpoint(const volatile void *ptr, size_t size, int type, uintptr_t ip,
				      uintptr_t anchor_fp)
{
	struct csan_cpu *c = this_csan_cpu();
	struct csan_ctx *ctx = get_ctx();
	struct csan_watch w = {
		.ptr = ptr,
		.size = size,
		.type = type,
		.ip = ip,
		.anchor_fp = anchor_fp,
	};
	/*
	 * Read once: the host may flip them while this CPU watches.  In hw
	 * mode the watch runs with interrupts on by default: a handler on
	 * this CPU touching the range is one of the things debug registers
	 * are there to catch.
	 */
	const bool hw = csan_knob(watch_hw) != 0;
	const bool irqs_off = !csan_knob(interrupt_watcher) && !hw;
	unsigned long flags = 0;
	uint64_t *wp;

	/* Always, even when disabled: the fast path left skip below zero. */
	reset_skip(c);
	if (!csan_is_enabled(ctx))
		return;
	if (!csan_wp_encodable(size)) {
		csan_counter_inc(CSAN_COUNTER_UNENCODABLE_ACCESSES);
		return;
	}
	/*
	 * With interrupts on, a handler on this CPU touching the same
	 * variable would be reported, although it cannot really interleave
	 * with the code it interrupted in most kernels' locking designs;
	 * KCSAN makes that an option, and so does this.
	 */
	if (irqs_off)
		flags = csan_port_irq_save();
	wp = insert_watchpoint((uintptr_t)ptr, size, (type & CSAN_ACCESS_WRITE) != 0);
	if (!wp) {
		/* Rare at the default skip_watch; frequent means lower the rate. */
		csan_counter_inc(CSAN_COUNTER_NO_CAPACITY);
		goto out;
	}
	csan_counter_inc(CSAN_COUNTER_SETUP_WATCHPOINTS);
	csan_counter_inc(CSAN_COUNTER_USED_WATCHPOINTS);
	w.slot = (size_t)(wp - csan_watchpoints);
	/*
	 * Remove only now: the entry and its report buffer may be reused as
	 * soon as it is free, and the report needed both.
	 */
	if (watch(c, ctx, wp, &w, hw)) {
		remove_watchpoint(wp);
		csan_counter_add(CSAN_COUNTER_USED_WATCHPOINTS, -1);
	}
out:
	if (irqs_off)
		csan_port_irq_restore(flags);
}

/*
 * Check the context's scoped assertions, as on every runtime entry that
 * did not do anything else.  The list is taken off the context while it
 * is walked, so the checks do not recurse into it.
 */
__noinline void csan_check_scoped_accesses(void)
{
	struct csan_ctx *ctx = get_ctx();
	struct kcsan_scoped_access *head = ctx->scoped, *sa;

	csan_ctx_set_scoped(ctx, NULL);
	for (sa = head; sa; sa = sa->next)
		check_access_at(sa->ptr, sa->size, sa->type, sa->ip, sa->fp);
	csan_ctx_set_scoped(ctx, head);
}
