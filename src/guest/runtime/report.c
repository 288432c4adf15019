/* report.c: race reports: stacks, the racing side's hand-over, the record. */
#include "internal.h"

/*
 * A report is built in the buffer of the watchpoint entry it is about.
 * Whoever holds the entry owns the buffer: the watcher from setting the
 * watchpoint up until it removes it, which it does only after reporting;
 * a racing access only after consuming the watchpoint, and only side[0].
 * So no lock is needed and no CPU waits for another's report, except the
 * watcher for the few instructions the racing side takes to describe
 * itself (the racing side never waits).
 */
static struct csan_hc_report reports[CSAN_WATCHPOINT_SLOTS] __attribute__((aligned(64)));

/* The racing side's full access (side[0] holds it clipped) and its hand-over flag. */
static struct {
	uint64_t addr;
	uint64_t size;
	uint32_t ready;
} other[CSAN_WATCHPOINT_SLOTS];

/*
 * How long the watcher waits for the racing side's description.  That
 * side is past the point of no return and runs straight-line code, so
 * this only ends the wait if its CPU was stopped (a VMM pausing a vCPU).
 */
#define OTHER_WAIT_US 1000000

/* Deeper than any guest stack; the stack is cut at CSAN_REPORT_MAX_STACK. */
#define STACK_WALK_MAX 128

/*
 * Walk the frame-pointer chain (x86-64: [fp] = caller's fp, [fp + 8] =
 * return address) from this function's frame.  The stack starts either
 * at the frame @anchor_fp, or right above the frame whose return address
 * is @ip (the instrumented function that made the access), so the
 * runtime's own frames are never in it.  Stops at a zero, misaligned or
 * non-increasing frame pointer, or one beyond this stack.  Returns the
 * number of return addresses stored in @ret, 0 if the start was not
 * found (never seen: then the report has the access without a stack).
 */
static __noinline unsigned int csan_stack_save(uintptr_t ip, uintptr_t anchor_fp, uint64_t *ret,
					       unsigned int max)
{
	uintptr_t fp = (uintptr_t)__builtin_frame_address(0);
	const uintptr_t limit = fp + CSAN_PORT_STACK_SIZE;
	bool started = false;
	unsigned int n = 0, depth;

	for (depth = 0; depth < STACK_WALK_MAX && n < max; depth++) {
		const uintptr_t *frame = (const uintptr_t *)fp;
		uintptr_t next, ra;

		if (!fp || (fp & 7) || fp + 16 > limit)
			break;
		next = frame[0];
		ra = frame[1];
		if (started) {
			if (!ra)
				break;
			ret[n++] = ra;
		} else if (anchor_fp ? fp == anchor_fp : ra == ip) {
			/* The anchor frame's own return address is the first; @ip is not. */
			started = true;
			if (anchor_fp && ra)
				ret[n++] = ra;
		}
		if (next <= fp)
			break;
		fp = next;
	}
	return started ? n : 0;
}

/* Describe this CPU's access as one side of a report. */
static void fill_side(struct csan_report_side *s, uint64_t addr, uint64_t size, int type,
		      uintptr_t ip, uintptr_t anchor_fp)
{
	const bool irq = csan_port_in_interrupt();

	s->addr = addr;
	s->size = (uint32_t)size;
	s->access = (uint32_t)type;
	s->cpu = csan_port_cpu() & (CSAN_MAX_CPUS - 1);
	s->context = irq ? CSAN_CTX_INTERRUPT : CSAN_CTX_TASK;
	s->task_id = irq ? 0 : csan_port_task_id();
	s->mechanism = CSAN_MECH_SOFT_WATCH;
	s->flags = CSAN_SIDE_IP_AFTER;
	s->ip = ip;
	s->nret = csan_stack_save(ip, anchor_fp, s->ret, CSAN_REPORT_MAX_STACK);
}

/*
 * The part of a large access [addr, addr + size) a report can carry
 * (CSAN_REPORT_MAX_SIZE bytes): from the watched address @waddr if it
 * lies inside, so the part shown still overlaps the watched access.
 */
static void clip_range(uint64_t *addr, uint64_t *size, uint64_t waddr)
{
	uint64_t start = *addr, end = *addr + *size;

	if (*size <= CSAN_REPORT_MAX_SIZE)
		return;
	if (waddr > start && waddr < end)
		start = waddr;
	if (end - start > CSAN_REPORT_MAX_SIZE)
		end = start + CSAN_REPORT_MAX_SIZE;
	*addr = start;
	*size = end - start;
}

/*
 * The racing side: it consumed the watchpoint @encoded in entry @slot;
 * describe this access, with the stack of this moment, for the watcher.
 */
__noinline void csan_report_set_info(const volatile void *ptr, size_t size, int type, uintptr_t ip,
				     uintptr_t anchor_fp, size_t slot, uint64_t encoded)
{
	uint64_t addr = (uintptr_t)ptr, len = size;
	struct csan_wp wp;

	other[slot].addr = addr;
	other[slot].size = size;
	if (len > CSAN_REPORT_MAX_SIZE && csan_wp_decode(encoded, &wp))
		clip_range(&addr, &len, (addr & ~CSAN_WP_ADDR_MASK) | wp.addr);
	fill_side(&reports[slot].side[0], addr, len, type, ip, anchor_fp);
	__atomic_store_n(&other[slot].ready, 1, __ATOMIC_RELEASE);
}

/* Reports sent, by kind (index 0: all), for csan_reports_sent(). */
static uint64_t sent[CSAN_REPORT_KIND_MAX];

/* Hand the finished record to the port. */
static void send(struct csan_hc_report *r)
{
	csan_port_report(r);
	csan_counter_inc(CSAN_COUNTER_REPORTS);
	__atomic_fetch_add(&sent[r->kind], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&sent[0], 1, __ATOMIC_RELAXED);
}

uint64_t csan_reports_sent(unsigned int kind)
{
	return kind < CSAN_REPORT_KIND_MAX ? __atomic_load_n(&sent[kind], __ATOMIC_RELAXED) : 0;
}

static void set_values(struct csan_hc_report *r, const struct csan_watch *w)
{
	if (w->size > 8)
		return;
	r->old_value = w->old_value;
	r->new_value = w->new_value;
	r->value_flags = CSAN_VALUE_OLD | CSAN_VALUE_NEW;
	if (w->mask) {
		r->mask = w->mask;
		r->value_flags |= CSAN_VALUE_MASK;
	}
}

/* Wait for the racing side's description; false if it never came. */
static bool await_other(size_t slot)
{
	uint64_t start = csan_port_time_us();

	while (!__atomic_load_n(&other[slot].ready, __ATOMIC_ACQUIRE)) {
		if (csan_port_time_us() - start > OTHER_WAIT_US)
			return false;
		csan_port_relax();
	}
	return true;
}

/* The racing side may be writing side[0] until it sets ready: clear after. */
static void release(struct csan_hc_report *r, size_t slot)
{
	__builtin_memset(r, 0, sizeof(*r));
	__atomic_store_n(&other[slot].ready, 0, __ATOMIC_RELEASE);
}

/*
 * A write consumed the watchpoint but the value has not changed (yet):
 * the racing CPU checks before it stores, and its store lands only once
 * it is back from the runtime.  On hardware that takes nanoseconds and
 * the watcher's re-read sees it; under an instruction emulator (PVM's
 * runs guest kernel code at ~1.6 M instructions/s) it can take longer
 * than the whole watch, and every race would pass for a write of the
 * same value and be filtered out.  So look again for up to one more
 * watch length.  The change seen may, rarely, be a later write's rather
 * than the racing one's; the racing access is still the one reported,
 * so only the printed values can be off, which is the cheaper mistake.
 */
static void await_write(struct csan_watch *w)
{
	const uint64_t start = csan_port_time_us(), grace = csan_watch_us();
	uint64_t v;

	do {
		v = csan_read_value(w->ptr, w->size);
		if (v != w->old_value) {
			w->new_value = v;
			w->change = CSAN_VALUE_CHANGE_TRUE;
			return;
		}
		csan_port_relax();
	} while (csan_port_time_us() - start <= grace);
}

/*
 * The watcher, after another access consumed its watchpoint: a report
 * with both stacks, the racing side first, as KCSAN prints it.  Returns
 * false if the entry must stay taken for good (see await_other).
 */
__noinline bool csan_report_known_origin(struct csan_watch *w)
{
	struct csan_hc_report *r = &reports[w->slot];
	const uint64_t addr = (uintptr_t)w->ptr;

	if (!await_other(w->slot)) {
		/*
		 * The racing side's late description would land in a reused
		 * buffer and corrupt someone else's report: retire the entry.
		 */
		csan_counter_inc(CSAN_COUNTER_REPORT_RACES);
		return false;
	}
	if (w->change == CSAN_VALUE_CHANGE_FALSE)
		goto out;
	if (w->change == CSAN_VALUE_CHANGE_MAYBE && (r->side[0].access & CSAN_ACCESS_WRITE))
		await_write(w);
	/* The encoding dropped the high address bits: compare the full ones. */
	if (!csan_wp_overlaps(other[w->slot].addr, other[w->slot].size, addr, w->size)) {
		csan_counter_inc(CSAN_COUNTER_ENCODING_FALSE_POSITIVES);
		goto out;
	}
	/*
	 * No change seen: the racing write may have stored the value that was
	 * there already, which is harmless often enough that KCSAN leaves it
	 * out by default (csan.report_value_change_only=0 keeps it).
	 */
	if (w->change == CSAN_VALUE_CHANGE_MAYBE && csan_knob(report_value_change_only)) {
		csan_counter_inc(CSAN_COUNTER_REPORTS_SKIPPED);
		goto out;
	}
	fill_side(&r->side[1], addr, w->size, w->type, w->ip, w->anchor_fp);
	r->kind = ((r->side[0].access | r->side[1].access) & CSAN_ACCESS_ASSERT)
			  ? CSAN_REPORT_ASSERT
			  : CSAN_REPORT_DATA_RACE;
	r->nsides = 2;
	/* In hw mode the host may have caught the same access: it merges the two. */
	r->hw_ticket = w->hw_ticket;
	set_values(r, w);
	send(r);
out:
	release(r, w->slot);
	return true;
}

/*
 * Describe the access a debug register caught, as far as the guest
 * knows it; the host fills in its stack (it unwound the trapped CPU).
 */
static void fill_hw_side(struct csan_report_side *s, const struct csan_watch *w)
{
	const struct csan_hc_hw_disarm *h = &w->hw;
	const bool irq = h->context == CSAN_CTX_INTERRUPT;

	s->addr = (uintptr_t)w->ptr;
	s->size = h->size ? h->size : (uint32_t)w->size;
	s->access = h->access & CSAN_ACCESS_WRITE;
	s->cpu = h->cpu & (CSAN_MAX_CPUS - 1);
	s->context = irq ? CSAN_CTX_INTERRUPT : CSAN_CTX_TASK;
	s->task_id = irq ? 0 : csan_port_task_id_on(s->cpu);
	s->mechanism = CSAN_MECH_HW_DEBUGREG;
	s->flags = 0; /* the host decoded the instruction: ip is exact */
	s->ip = h->ip;
	s->nret = 0;
}

/*
 * The watcher, after a debug register caught an access that no soft
 * watchpoint saw (uninstrumented code, or an interrupt on this CPU): a
 * two-stack report like a known-origin one, judged by the same value
 * rules (w->change, see watch.c).  The slot is the watcher's own, so no
 * hand-over is needed.
 */
__noinline bool csan_report_hw_origin(struct csan_watch *w)
{
	struct csan_hc_report *r = &reports[w->slot];

	if (w->change == CSAN_VALUE_CHANGE_FALSE)
		return true;
	if (w->change == CSAN_VALUE_CHANGE_MAYBE && csan_knob(report_value_change_only)) {
		csan_counter_inc(CSAN_COUNTER_REPORTS_SKIPPED);
		return true;
	}
	if (!(w->type & CSAN_ACCESS_ASSERT))
		csan_counter_inc(CSAN_COUNTER_DATA_RACES);
	fill_hw_side(&r->side[0], w);
	fill_side(&r->side[1], (uintptr_t)w->ptr, w->size, w->type, w->ip, w->anchor_fp);
	r->kind = (w->type & CSAN_ACCESS_ASSERT) ? CSAN_REPORT_ASSERT : CSAN_REPORT_DATA_RACE;
	r->nsides = 2;
	r->hw_ticket = w->hw_ticket;
	set_values(r, w);
	send(r);
	__builtin_memset(r, 0, sizeof(*r));
	return true;
}

/* The watcher saw the value change but nobody run into the watchpoint. */
__noinline void csan_report_unknown_origin(const struct csan_watch *w)
{
	struct csan_hc_report *r = &reports[w->slot];

	fill_side(&r->side[0], (uintptr_t)w->ptr, w->size, w->type, w->ip, w->anchor_fp);
	r->kind = CSAN_REPORT_UNKNOWN_ORIGIN;
	r->nsides = 1;
	set_values(r, w);
	send(r);
	__builtin_memset(r, 0, sizeof(*r));
}

/* KCSAN's words for an access type, for ports that print reports themselves. */
const char *csan_access_name(uint32_t type)
{
	const char *s;

	if (type & CSAN_ACCESS_ASSERT) {
		if (type & CSAN_ACCESS_SCOPED)
			return (type & CSAN_ACCESS_WRITE) ? "assert no accesses (scoped)"
							  : "assert no writes (scoped)";
		return (type & CSAN_ACCESS_WRITE) ? "assert no accesses" : "assert no writes";
	}
	if (type & CSAN_ACCESS_COMPOUND)
		s = (type & CSAN_ACCESS_ATOMIC) ? "read-write (marked)" : "read-write";
	else if (type & CSAN_ACCESS_WRITE)
		s = (type & CSAN_ACCESS_ATOMIC) ? "write (marked)" : "write";
	else
		s = (type & CSAN_ACCESS_ATOMIC) ? "read (marked)" : "read";
	return s;
}
