/* internal.h: the runtime's shared state and its inline fast path. */
#ifndef CSAN_RUNTIME_INTERNAL_H
#define CSAN_RUNTIME_INTERNAL_H

/*
 * Never built with -fsanitize=thread: the runtime's own accesses must not
 * call back into it.  The fast path (check_access and what it inlines)
 * never dereferences the address it checks; only the slow path that
 * watches an address reads it.
 */

#include <csan/abi.h>

#include "csan.h"
#include "encoding.h"
#include "port.h"

#ifndef likely
#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif
#ifndef __noinline
#define __noinline __attribute__((noinline))
#endif
#define CSAN_RET_IP ((uintptr_t)__builtin_return_address(0))

/* The runtime's own marked accesses (it is not instrumented: plain volatile). */
#define CSAN_READ(x)	 (*(const volatile __typeof__(x) *)&(x))
#define CSAN_WRITE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))

_Static_assert((CSAN_MAX_CPUS & (CSAN_MAX_CPUS - 1)) == 0, "CPU index is masked");

/*
 * Per-context state, as KCSAN's struct kcsan_ctx: one for the task each
 * CPU runs and one for its interrupt handlers (which do not nest here).
 */
struct csan_ctx {
	int disable_count; /* kcsan_disable_current() depth */
	/*
	 * Everything that takes an access off the fast path, in one word the
	 * fast path tests with one compare: zero nearly always.
	 */
	union {
		struct {
			int32_t atomic_next;	   /* this many next accesses count as marked */
			int16_t atomic_nest_count; /* kcsan_nestable_atomic_begin() depth */
			uint8_t in_flat_atomic;	   /* kcsan_flat_atomic_begin() */
			uint8_t scoped_pending;	   /* scoped != NULL: csan_ctx_set_scoped() */
		};
		uint64_t unusual;
	};
	unsigned long access_mask;	    /* ASSERT_EXCLUSIVE_BITS' mask, or 0 */
	struct kcsan_scoped_access *scoped; /* innermost first */
};
_Static_assert(sizeof(((struct csan_ctx *)0)->unusual) == 8, "one word, one compare");

struct csan_cpu {
	struct csan_ctx task;
	struct csan_ctx irq;
	long skip;     /* accesses left before the next watchpoint */
	uint32_t rand; /* the delay and skip randomizer's state */
} __attribute__((aligned(64)));

extern struct csan_cpu csan_cpus[CSAN_MAX_CPUS];
extern struct csan_control csan_control;
extern uint64_t csan_watchpoints[CSAN_WATCHPOINT_SLOTS];

/* A knob's current value: the host may change it at any time. */
#define csan_knob(name) CSAN_READ(csan_control.name)

static inline void csan_counter_add(enum csan_counter c, long v)
{
	__atomic_fetch_add(&csan_control.counters[c], (uint64_t)v, __ATOMIC_RELAXED);
}
#define csan_counter_inc(c) csan_counter_add(c, 1)

/* CPU @cpu's entry; masked: a bad port answer must not write outside the array. */
static __always_inline struct csan_cpu *csan_cpu_at(unsigned int cpu)
{
	return &csan_cpus[cpu & (CSAN_MAX_CPUS - 1)];
}

/* The context of CPU @c in force in interrupt handlers (@in_irq) or tasks. */
static __always_inline struct csan_ctx *csan_ctx_of(struct csan_cpu *c, bool in_irq)
{
	return in_irq ? &c->irq : &c->task;
}

/*
 * A port that can keep a pointer to its CPU's entry at hand (the POSIX
 * port: a thread-local) defines CSAN_PORT_CPU_STATE and saves the
 * fast path the index arithmetic.
 */
static __always_inline struct csan_cpu *this_csan_cpu(void)
{
#ifdef CSAN_PORT_CPU_STATE
	return csan_port_cpu_state();
#else
	return csan_cpu_at(csan_port_cpu());
#endif
}

/*
 * The context in force on CPU @c.  A port that switches a pointer on
 * interrupt entry and exit defines CSAN_PORT_CTX and saves the fast path
 * the test and the branch.
 */
static __always_inline struct csan_ctx *cpu_ctx(struct csan_cpu *c)
{
#ifdef CSAN_PORT_CTX
	return csan_port_ctx();
#else
	return csan_ctx_of(c, csan_port_in_interrupt());
#endif
}

/* Set @ctx's scoped list and the fast path's word that says it is not empty. */
static inline void csan_ctx_set_scoped(struct csan_ctx *ctx, struct kcsan_scoped_access *head)
{
	ctx->scoped = head;
	ctx->scoped_pending = head != NULL;
}

static __always_inline struct csan_ctx *get_ctx(void)
{
	return cpu_ctx(this_csan_cpu());
}

static __always_inline bool csan_is_enabled(const struct csan_ctx *ctx)
{
	return csan_knob(enabled) && !ctx->disable_count;
}

/*
 * Can any of the entries an access at @addr checks matter to it?  The
 * common answer, no, in three loads and one branch: free (0) and
 * consumed (1) entries OR together to at most 1, while every watchpoint
 * has higher bits set, and a watched write bit 63 (all a read cares
 * about, @expect_write).  Plain loads, not atomic ones: gcc folds plain
 * loads into the ORs (load, OR, OR: three instructions) but not atomic or
 * volatile ones (six).  That is safe here: each word is aligned, so it is
 * read whole by one instruction, the fast path reads it once and only
 * branches on it, and a stale value only means the race is found a
 * little later or not at all.  Everything that acts on an entry
 * (find_watchpoint(), the slow path) reads it atomically.
 */
static __always_inline bool watchpoints_near(uintptr_t addr, bool expect_write)
{
	const uint64_t *wp = &csan_watchpoints[csan_wp_check_index(csan_wp_slot(addr), 0)];
	uint64_t any = 0;
	unsigned int i;

#pragma GCC unroll 8
	for (i = 0; i < CSAN_NUM_SLOTS; i++)
		any |= wp[i];
	_Static_assert(CSAN_WP_INVALID <= CSAN_WP_CONSUMED &&
			       (CSAN_WP_INVALID | CSAN_WP_CONSUMED) == CSAN_WP_CONSUMED &&
			       (CSAN_WP_CONSUMED & CSAN_WP_WRITE_BIT) == 0,
		       "free and consumed entries OR to at most CONSUMED, without the write bit");
	return expect_write ? (any & CSAN_WP_WRITE_BIT) != 0 : any > CSAN_WP_CONSUMED;
}

/*
 * The watchpoint matching an access, if any: @expect_write because a read
 * only conflicts with a watched write, while a write conflicts with any
 * watched access.  Only after watchpoints_near() said there may be one
 * (the slow path).
 */
static __always_inline uint64_t *find_watchpoint(uintptr_t addr, size_t size, bool expect_write,
						 uint64_t *encoded)
{
	const size_t slot = csan_wp_slot(addr);
	const uint64_t addr_masked = addr & CSAN_WP_ADDR_MASK;
	unsigned int i;

	for (i = 0; i < CSAN_NUM_SLOTS; i++) {
		uint64_t *wp = &csan_watchpoints[csan_wp_check_index(slot, i)];
		uint64_t v = __atomic_load_n(wp, __ATOMIC_RELAXED);
		struct csan_wp d;

		if (!csan_wp_decode(v, &d))
			continue;
		if (expect_write && !d.is_write)
			continue;
		if (csan_wp_overlaps(d.addr, d.size, addr_masked, size)) {
			*encoded = v;
			return wp;
		}
	}
	return NULL;
}

/* KCSAN's rules for accesses that count as marked and are never watched. */
static __always_inline bool is_atomic(struct csan_ctx *ctx, uintptr_t addr, size_t size, int type)
{
	if (type & CSAN_ACCESS_ATOMIC)
		return true;
	/*
	 * An assertion is never implicitly marked, so it keeps its meaning
	 * inside atomic regions (seqlock readers, say).
	 */
	if (type & CSAN_ACCESS_ASSERT)
		return false;
	/*
	 * A plain aligned write of 1, 2, 4 or 8 bytes is one store on x86-64
	 * and does not tear; by default it is treated as marked, as in Linux.
	 * (A 3, 5 or 7-byte range write is several stores: never marked.)
	 * It is still checked against other watchpoints.
	 */
	if ((type & CSAN_ACCESS_WRITE) && !(type & CSAN_ACCESS_COMPOUND) && size <= 8 &&
	    (size & (size - 1)) == 0 && (addr & (size - 1)) == 0 &&
	    csan_knob(assume_plain_writes_atomic))
		return true;
	/* Outside atomic regions and scopes (nearly always): one branch. */
	if (likely(!ctx->unusual))
		return false;
	if (ctx->atomic_next > 0) {
		ctx->atomic_next--;
		return true;
	}
	return ctx->atomic_nest_count > 0 || ctx->in_flat_atomic;
}

/* The sampling decision: marked accesses do not count towards the skip. */
static __always_inline bool should_watch(struct csan_cpu *c, struct csan_ctx *ctx, uintptr_t addr,
					 size_t size, int type)
{
	if (is_atomic(ctx, addr, size, type))
		return false;
	/* Per CPU and plain: an interrupt losing a decrement does no harm. */
	return --c->skip < 0;
}

/* The watched value; 0 for sizes whose value is not compared. */
static inline uint64_t csan_read_value(const volatile void *ptr, size_t size)
{
	switch (size) {
	case 1: return *(const volatile uint8_t *)ptr;
	case 2: return *(const volatile uint16_t *)ptr;
	case 4: return *(const volatile uint32_t *)ptr;
	case 8: return *(const volatile uint64_t *)ptr;
	default: return 0;
	}
}

/* How long a watch lasts in this context, before randomization. */
static inline uint32_t csan_watch_us(void)
{
	return csan_port_in_interrupt() ? csan_knob(udelay_interrupt) : csan_knob(udelay_task);
}

/* watch.c: the slow paths (cold: the fast path keeps its registers for itself). */
__attribute__((cold)) void csan_found_watchpoint(const volatile void *ptr, size_t size, int type,
						 uintptr_t ip, uintptr_t anchor_fp, uint64_t *wp,
						 uint64_t encoded);
__attribute__((cold)) void csan_setup_watchpoint(const volatile void *ptr, size_t size, int type,
						 uintptr_t ip, uintptr_t anchor_fp);
__attribute__((cold)) void csan_check_scoped_accesses(void);

/*
 * The whole check, as KCSAN's check_access(): run into a watchpoint, or
 * decide whether to set one up, or check the scoped assertions.  Every
 * case is here; check_access_at() below takes the common one inline and
 * sends the rest to csan_check_access_slow(), which runs this.
 */
static __always_inline void check_access_full(const volatile void *ptr, size_t size, int type,
					      uintptr_t ip, uintptr_t anchor_fp)
{
	const uintptr_t addr = (uintptr_t)ptr;
	struct csan_cpu *c;
	struct csan_ctx *ctx;
	uint64_t encoded, *wp;

	if (unlikely(size == 0))
		return;
	wp = find_watchpoint(addr, size, !(type & CSAN_ACCESS_WRITE), &encoded);
	if (unlikely(wp != NULL)) {
		csan_found_watchpoint(ptr, size, type, ip, anchor_fp, wp, encoded);
		return;
	}
	c = this_csan_cpu();
	ctx = cpu_ctx(c);
	if (unlikely(should_watch(c, ctx, addr, size, type)))
		csan_setup_watchpoint(ptr, size, type, ip, anchor_fp);
	else if (unlikely(ctx->scoped != NULL))
		csan_check_scoped_accesses();
}

/* watch.c: check_access_full(), out of line. */
__attribute__((cold)) void csan_check_access_slow(const volatile void *ptr, size_t size, int type,
						  uintptr_t ip, uintptr_t anchor_fp);

/*
 * The fast path, inlined into every entry point.  @ip is the access (a
 * return address into the instrumented code), or 0 for the return
 * address of the entry point this is inlined into: then only the slow
 * paths read it, and the fast path does not load it at all.  @anchor_fp,
 * when not 0, is the frame the access's stack starts from (scoped
 * checks, see report.c).
 *
 * It does what check_access_full() does when nothing is unusual: no
 * watchpoint near, a context with no atomic region, no atomic_next and
 * no scoped assertion; then only the skip counter is left.  Anything
 * else goes to the slow path, which starts over, so both always agree.
 * Every call here is the last thing done: nothing has to survive it, so
 * the fast path needs no callee-saved registers.
 */
static __always_inline void check_access_at(const volatile void *ptr, size_t size, int type,
					    uintptr_t ip, uintptr_t anchor_fp)
{
	const uintptr_t addr = (uintptr_t)ptr;
	struct csan_cpu *c;
	struct csan_ctx *ctx;

	if (unlikely(size == 0))
		return;
	if (unlikely(watchpoints_near(addr, !(type & CSAN_ACCESS_WRITE))))
		goto slow;
	c = this_csan_cpu();
	ctx = cpu_ctx(c);
	if (unlikely(ctx->unusual))
		goto slow;
	if (is_atomic(ctx, addr, size, type))
		return;
	if (likely(--c->skip >= 0))
		return;
	csan_setup_watchpoint(ptr, size, type, ip ? ip : CSAN_RET_IP, anchor_fp);
	return;
slow:
	csan_check_access_slow(ptr, size, type, ip ? ip : CSAN_RET_IP, anchor_fp);
}

/* An access made by the caller of the entry point this is inlined into. */
static __always_inline void check_access(const volatile void *ptr, size_t size, int type)
{
	check_access_at(ptr, size, type, 0, 0);
}

/* report.c */
void csan_report_set_info(const volatile void *ptr, size_t size, int type, uintptr_t ip,
			  uintptr_t anchor_fp, size_t slot, uint64_t encoded);
enum csan_value_change {
	CSAN_VALUE_CHANGE_FALSE, /* never report */
	CSAN_VALUE_CHANGE_MAYBE, /* report unless only value changes count */
	CSAN_VALUE_CHANGE_TRUE,	 /* the value changed: report */
};
/* What the watcher knows when its watch ends. */
struct csan_watch {
	const volatile void *ptr;
	size_t size;
	int type;
	uintptr_t ip;
	uintptr_t anchor_fp;
	size_t slot;
	uint64_t old_value, new_value;
	unsigned long mask;
	enum csan_value_change change;
	/* Hardware-watchpoint mode: the host's ticket (0: not armed) and what it caught. */
	uint32_t hw_ticket;
	struct csan_hc_hw_disarm hw;
};
bool csan_report_known_origin(struct csan_watch *w);
bool csan_report_hw_origin(struct csan_watch *w);
void csan_report_unknown_origin(const struct csan_watch *w);
const char *csan_access_name(uint32_t type);

/* knobs.c */
uint32_t csan_random(struct csan_cpu *c, uint32_t bound);

#endif /* CSAN_RUNTIME_INTERNAL_H */
