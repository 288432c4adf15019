/* sample_sites.h: the instructions of a kernel's text worth a sampled code breakpoint. */
#ifndef CSAN_WATCH_SAMPLE_SITES_H
#define CSAN_WATCH_SAMPLE_SITES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Sampling in the manner of DataCollider (Erickson et al., OSDI 2010),
 * for a kernel built without any race detector: the VMM puts execution
 * breakpoints on a few memory-accessing instructions at a time; at a hit
 * it computes the address the instruction is about to access, watches it
 * with data breakpoints on every vCPU while it holds the hitting vCPU
 * back, and compares the value before and after.  This file is the
 * host-side table of candidate instructions ("sites") and the draw among
 * them; it knows nothing of KVM.
 *
 * A site is an instruction with exactly one explicit memory operand that
 * it reads or writes as a plain general-purpose access of 1, 2, 4 or 8
 * bytes: mov, movzx/movsx, add/sub/and/or/xor/inc/dec/neg/not on memory,
 * cmp, test, cmov, setcc, and bts/btr/btc (the kernel's non-atomic
 * __set_bit, __clear_bit, __change_bit).  With a register bit offset those
 * address memory beyond the operand, a bit string: the word holding the
 * bit, at the operand plus (offset >> log2(operand bits)) operands (SDM
 * Vol. 2A, BT), which sample_site_address follows.  Every other
 * instruction is left out, each for one reason (enum sample_skip,
 * counted per table, under the first that applies in the enum's order):
 *
 *   - no memory operand, or one that is not accessed (lea, nop with a
 *     ModRM operand, prefetch*): nothing to watch.
 *   - call stack: the implicit stack slot of push, pop, call, ret, leave,
 *     enter (with no other memory operand), and
 *   - stack: an operand based on %rsp.  The stack is the thread's own; a
 *     race on it is vanishingly rare and a watch on it would fire on
 *     every call.  An operand based on %rbp is kept but marked (site
 *     field frame): with
 *     frame pointers it is a stack slot, without them %rbp is an ordinary
 *     register; the runtime tells by the address (within the vCPU's
 *     stack or not).
 *   - atomic: a LOCK prefix, XCHG with memory (implicitly locked), and
 *     CMPXCHG/CMPXCHG8B/16B/XADD even without LOCK: the kernel uses those
 *     only as atomics or on per-CPU data, and on a kernel booted with one
 *     CPU its alternatives patch the LOCK of .smp_locks away, so the
 *     prefix alone is not a reliable sign.  And BT on memory: it is
 *     test_bit(), which the kernel defines as an atomic read (KCSAN
 *     instruments it as one).  Atomics are synchronization, not races
 *     (KCSAN's rule too).
 *   - per-CPU: a %gs or %fs segment override.  %gs is this CPU's per-CPU
 *     area (and the stack protector's canary): other CPUs reach it only
 *     through its linear address, rarely, and the base would have to be
 *     read from the vCPU's MSR at each hit.
 *   - string: movs, stos, lods, scas, cmps, ins, outs (with or without
 *     REP): two operands or a run of addresses that one data breakpoint
 *     cannot cover, and a REP one is interrupted by a data breakpoint with
 *     iterations left.  memcpy/memset are better sampled at their callers.
 *   - branch through memory: call/jmp through a pointer in memory (switch
 *     jump tables, paravirt calls).  The value is a code address mostly in
 *     read-only tables, the instruction also transfers control (and call
 *     pushes), and the paravirt ones are rewritten at boot.
 *   - two accesses: push/pop with a memory operand (the operand and the
 *     stack slot): the runtime watches one address per hit.
 *   - special: vector, x87, SSE/AVX, privileged and system instructions
 *     (lgdt, invlpg, xsave, clflush...), operand sizes other than 1, 2, 4
 *     or 8 bytes, 64-bit absolute addresses (movabs).  They live in
 *     crypto, context switch and CPU set-up code, and need a decoder of
 *     their own semantics to compare values.
 *   - unsafe text: the entry code (.entry.text: syscall and interrupt
 *     entry, running on the user's %gs, page tables and stack before the
 *     kernel's are in place), .noinstr.text (the #DB, NMI, #MC and
 *     low-level exception handlers: the kernel keeps every kind of
 *     instrumentation out of them), .cpuidle.text (idle with RCU not
 *     watching) and kprobes' own text.  Holding a vCPU there stalls a CPU
 *     that others wait on with interrupts off (an NMI handler, a TLB
 *     shootdown), and an address computed there may be in the user's page
 *     tables.
 *   - patched: an instruction the guest rewrites (the original bytes of
 *     an .altinstructions entry, static call trampolines): the bytes the
 *     table was built from are not what runs.  What the guest patches
 *     later (text_poke, module unload) is the runtime's to notice: it
 *     checks a site's bytes before arming it, and retires it if they
 *     changed.
 *   - may fault: an instruction in the exception table (__ex_table):
 *     get_user/put_user and copy_*_user with their SMAP window, *_safe MSR
 *     and probe reads.  Their address is user memory or a probe; a race
 *     with user space is not a kernel data race.
 *   - handler function: a function whose name says it handles
 *     breakpoints, exceptions, NMIs, dying or kprobes, or is the runtime of
 *     a sanitizer built into the kernel (kcsan_*, __tsan_*, whose races
 *     with itself are by design): a breakpoint and delay in the code that
 *     reports a crash or services a debug event make a bad day worse.
 *   - undecodable: bytes capstone does not decode (data in text) and
 *     instructions that straddle a function's start (the linear sweep lost
 *     the instruction boundary there; it starts again at the function).
 *
 * Runs of INT3 (0xcc), which x86 Linux pads its text with (between
 * functions, and up to the 2 MB alignment of .entry.text: megabytes), are
 * skipped as padding and counted in bytes, not as instructions.
 *
 * Sections: from a vmlinux, the executable sections that stay mapped
 * after boot; .init.text, .exit.text, .altinstr_replacement and
 * .altinstr_aux (and any executable section between __init_begin and
 * __init_end) are freed after boot and never decoded.  On x86-64 Linux
 * .entry.text, .noinstr.text and .cpuidle.text are not sections of
 * vmlinux but ranges of its .text, found through their __*_text_start/
 * __*_text_end symbols.
 *
 * Addresses are the code's as given (a vmlinux's link-time addresses;
 * module text at its load address).  Under KASLR the kernel's text and
 * data move by one offset; a site records what stays true:
 *   - rip-relative operands (most globals) keep the displacement and are
 *     resolved from the RIP at the hit (sample_site_address), or from the
 *     site's own address for the table's view (sample_site_global);
 *   - a displacement that is itself an address in the image (an array
 *     indexed by a register, "mov ARRAY(,%rax,8)") is relocated by the
 *     kernel at boot with the text: marked image_disp, and moved
 *     by the same offset, taken as the hit's RIP less the site's address.
 *
 * Selection (DataCollider's choice): uniformly at random over the static
 * sites, so that code that runs once a day gets the same chance as a hot
 * loop; without replacement until every live site has been drawn once (a
 * "round"), then again in a new order; reproducible from a seed.
 *
 * Memory: a site is 16 bytes and its place in the draw order 4; about
 * 10^6 instructions of a 4 MB .text give some 10^5 sites: 3 MB.  What
 * only building needs (excluded ranges, function starts) is freed when
 * drawing begins.
 */

/*
 * Why an instruction is not a site (see above); SAMPLE_KEPT for a site.
 * A table is not locked: build and draw from one thread, or under the
 * caller's lock.
 */
enum sample_skip {
	SAMPLE_KEPT = 0,
	SAMPLE_SKIP_UNDECODABLE,
	SAMPLE_SKIP_UNSAFE_TEXT,
	SAMPLE_SKIP_PATCHED,
	SAMPLE_SKIP_MAY_FAULT,
	SAMPLE_SKIP_HANDLER_FUNCTION,
	SAMPLE_SKIP_NO_MEMORY,
	SAMPLE_SKIP_CALL_STACK,
	SAMPLE_SKIP_NO_ACCESS,
	SAMPLE_SKIP_STRING,
	SAMPLE_SKIP_PERCPU,
	SAMPLE_SKIP_ATOMIC,
	SAMPLE_SKIP_BRANCH,
	SAMPLE_SKIP_SPECIAL,
	SAMPLE_SKIP_STACK,
	SAMPLE_SKIP_TWO_ACCESSES,
	SAMPLE_SKIP_COUNT
};

/* sample_skip_name - a short name for @why ("kept", "stack", "atomic", ...). */
const char *sample_skip_name(enum sample_skip why);

/* Registers in the ModRM numbering: rax 0, rcx 1, ... rsp 4, rbp 5, ... r15 15. */
#define SAMPLE_REG_NONE 16 /* no base / no index */
#define SAMPLE_REG_RIP	17 /* base only: rip-relative */

/* Segment override of the operand (a kept site has none). */
enum sample_seg { SAMPLE_SEG_NONE, SAMPLE_SEG_FS, SAMPLE_SEG_GS };

/*
 * One site: 16 bytes.  The operand is base + index * scale + disp, the
 * instruction's @len bytes at @addr; it reads and/or writes
 * 1 << size_log2 bytes there.
 */
struct sample_site {
	uint64_t addr;
	int32_t disp;
	uint32_t len : 4;
	uint32_t size_log2 : 2;
	uint32_t base : 5;  /* 0-15, SAMPLE_REG_NONE or SAMPLE_REG_RIP */
	uint32_t index : 5; /* 0-15 or SAMPLE_REG_NONE */
	uint32_t scale_log2 : 2;
	uint32_t seg : 2; /* enum sample_seg */
	uint32_t read : 1;
	uint32_t write : 1;
	uint32_t frame : 1;	 /* base %rbp: a stack slot with frame pointers */
	uint32_t global : 1;	 /* rip-relative or an absolute image address */
	uint32_t image_disp : 1; /* disp is an image address, relocated with the text */
	uint32_t retired : 1;	 /* sample_table_retire'd: never drawn again */
	uint32_t bit_reg : 5;	 /* bt*: the register holding the bit offset, or SAMPLE_REG_NONE */
};

_Static_assert(sizeof(struct sample_site) == 16, "a site stays 16 bytes: 10^5 of them per kernel");

static inline unsigned sample_site_size(const struct sample_site *s)
{
	return 1u << s->size_log2;
}

/*
 * sample_site_address - the address site @s accesses when it runs at
 * guest address @rip with the 16 general registers @regs (ModRM order):
 * at an execution breakpoint, which fires before the instruction runs, so
 * the registers are the ones it will use (for a bit string, the word
 * that holds the bit).  @rip may differ from s->addr
 * by the kernel's KASLR offset; rip-relative and image displacements
 * follow it.  A linear address, without a segment base (kept sites have
 * no %fs/%gs override).
 */
uint64_t sample_site_address(const struct sample_site *s, const uint64_t regs[16], uint64_t rip);

/*
 * sample_site_global - the global a site reaches without registers, at the
 * table's addresses: the target of a rip-relative operand, or an absolute
 * image address with no base and no index; 0 for any other site.
 */
uint64_t sample_site_global(const struct sample_site *s);

/*
 * sample_bytes_relocated - whether an instruction's @len bytes as the
 * guest has them (@have) are the vmlinux's (@want) as a kernel moved by
 * @offset (KASLR) relocates them: the same, but for 32-bit fields (an
 * absolute image address in a displacement or an immediate) that hold
 * the vmlinux's value plus @offset.  With @offset 0, the same bytes.
 */
bool sample_bytes_relocated(const uint8_t *have, const uint8_t *want, unsigned len,
			    int64_t offset);

/* What building a table found. */
struct sample_stats {
	uint64_t insns;			   /* instructions and undecodable bytes */
	uint64_t count[SAMPLE_SKIP_COUNT]; /* per reason; [SAMPLE_KEPT] = sites;
					    * they add up to insns */
	uint64_t padding_bytes;		   /* INT3 padding, skipped */
	uint64_t text_bytes;		   /* bytes of code given (decoded) */
	uint64_t freed_bytes;		   /* vmlinux: bytes of sections left out */
	unsigned freed_sections;	   /* vmlinux: how many */
	uint64_t image_lo, image_hi;	   /* displacements in here are image addresses */
};

struct sample_table;

/* sample_table_new - an empty table; NULL when out of memory. */
struct sample_table *sample_table_new(void);

void sample_table_free(struct sample_table *t);

/*
 * sample_table_set_image - displacements in [@lo, @hi) are addresses in
 * the kernel image (relocated with its text under KASLR).  Before
 * sample_table_add_code.
 */
void sample_table_set_image(struct sample_table *t, uint64_t lo, uint64_t hi);

/*
 * sample_table_exclude - instructions that overlap [@lo, @hi) are left
 * out for @why (one of the range reasons: unsafe text, patched, may
 * fault, handler function).  Where ranges overlap, the lower reason in
 * enum sample_skip counts.  Before sample_table_add_code.  Returns 0 or
 * -ENOMEM.
 */
int sample_table_exclude(struct sample_table *t, uint64_t lo, uint64_t hi, enum sample_skip why);

/*
 * sample_table_add_function - a function starts at @addr: the linear
 * sweep restarts there if an instruction before it runs over it.  Before
 * sample_table_add_code.  Returns 0 or -ENOMEM.
 */
int sample_table_add_function(struct sample_table *t, uint64_t addr);

/*
 * sample_table_add_code - decode the @len bytes of @code at guest address
 * @addr and add their sites.  Code may be added in pieces, in any order,
 * but pieces must not overlap.  Returns 0; -ENOMEM with the reason in @why
 * (@whylen bytes); -EINVAL after sample_table_seed.
 */
int sample_table_add_code(struct sample_table *t, const uint8_t *code, size_t len, uint64_t addr,
			  char *why, size_t whylen);

/*
 * sample_table_from_vmlinux - a table of the text of the vmlinux ELF at
 * @path that stays mapped after boot, with the exclusions above (unsafe
 * text ranges, alternatives, exception table, handler functions by name
 * from its symbol table).  Returns 0 with the table in *@out; -errno with
 * the reason in @why (not readable, not an ELF, no text).
 */
int sample_table_from_vmlinux(const char *path, struct sample_table **out, char *why,
			      size_t whylen);

const struct sample_stats *sample_table_stats(const struct sample_table *t);

/* Sites, sorted by address (after sample_table_seed, or sample_table_sort). */
size_t sample_table_count(const struct sample_table *t);
const struct sample_site *sample_table_site(const struct sample_table *t, size_t i);

/* sample_table_sort - sort the sites by address (sample_table_seed does it too). */
void sample_table_sort(struct sample_table *t);

/* sample_table_find - the site at @addr (a sorted table), or NULL. */
const struct sample_site *sample_table_find(const struct sample_table *t, uint64_t addr);

/* sample_table_bytes - heap bytes the table holds (sites, draw order, ranges). */
size_t sample_table_bytes(const struct sample_table *t);

/*
 * sample_table_seed - (re)start drawing from @seed: a new first round.
 * Ends building (no more add_code; what only building needed is freed).
 * Returns 0 or -ENOMEM.
 */
int sample_table_seed(struct sample_table *t, uint64_t seed);

/*
 * sample_table_draw - the next site of the current round, each live site
 * once per round in a uniformly random order; when a round is done the
 * next begins.  NULL when no site is live (or before sample_table_seed).
 */
const struct sample_site *sample_table_draw(struct sample_table *t);

/* sample_table_round - rounds begun since the seed (1 after the first draw). */
uint64_t sample_table_round(const struct sample_table *t);

/* sample_table_live - sites not retired. */
size_t sample_table_live(const struct sample_table *t);

/*
 * sample_table_retire - never draw the site at @addr again (the guest
 * rewrote its bytes, or unloaded its module).  Returns 0, -ENOENT when no
 * site starts at @addr, -EALREADY when it was retired already.
 */
int sample_table_retire(struct sample_table *t, uint64_t addr);

/* The longest shell pattern sample_patterns_match takes; longer ones match nothing. */
#define SAMPLE_PATTERN_MAX 255

/*
 * sample_patterns_match - whether function @name matches one of the
 * comma-separated shell patterns (fnmatch) of @patterns ("ext4_*,jbd2_*").
 */
bool sample_patterns_match(const char *patterns, const char *name);

/*
 * sample_handler_function - whether function @name handles breakpoints,
 * exceptions, NMIs, oopses or kprobes, or is an in-kernel sanitizer's
 * runtime (the "handler function" reason above), in the vmlinux or a
 * module.
 */
bool sample_handler_function(const char *name);

/* --- loaded modules (sample_module.c) ---------------------------------------
 *
 * A Linux module's text is decoded from guest memory once the kernel has
 * finished writing it (relocations and alternatives applied: state
 * COMING or LIVE), one table per module: the bytes are what runs, so the
 * "patched" reason has nothing left to catch, and rip-relative operands
 * already point where they will at run time.  Its exception table (the
 * guest's own copy, struct module's extable) gives the "may fault"
 * sites, its functions (from the .ko) the sweep's restarts and the
 * "handler function" ones, as for the vmlinux.
 */

/* One text section of a module: @len bytes at guest address @addr. */
struct sample_module_text {
	uint64_t addr;
	const uint8_t *bytes;
	size_t len;
};

/*
 * Where the function holding @addr starts, its size and its name (may be
 * NULL); 0, or negative when none holds it (sym_function_at's shape).
 */
typedef int (*sample_function_at_fn)(void *ctx, uint64_t addr, uint64_t *start, uint64_t *size,
				     const char **name);

/*
 * sample_table_from_module - a table of the @ntext text sections @text
 * of one module, instructions at the @nfault addresses @may_fault left
 * out (its exception table's), functions found through @fn_at(@ctx, ...)
 * (may be NULL: one sweep per section).  Not seeded.  Returns 0 with the
 * table in *@out; -ENOMEM, -EINVAL (no text) with the reason in @why.
 */
int sample_table_from_module(const struct sample_module_text *text, unsigned ntext,
			     const uint64_t *may_fault, size_t nfault, sample_function_at_fn fn_at,
			     void *ctx, struct sample_table **out, char *why, size_t whylen);

/*
 * A pool: the vmlinux's table and one table per loaded module, drawn as
 * one (sample_pool.c).  Sites are named by their run-time address: a
 * vmlinux site's link address plus the kernel's KASLR offset, a module
 * site's guest address.  Not locked, as a table.
 */
struct sample_pool;

/*
 * sample_pool_new - a pool over the vmlinux's @kernel (seeded; the pool
 * owns it from now, even on failure), its module draws seeded from
 * @seed.  NULL when out of memory.
 */
struct sample_pool *sample_pool_new(struct sample_table *kernel, uint64_t seed);
void sample_pool_free(struct sample_pool *p);

/* sample_pool_set_offset - the running kernel's text is @off bytes from its link address. */
void sample_pool_set_offset(struct sample_pool *p, int64_t off);

struct sample_table *sample_pool_kernel(struct sample_pool *p);

/*
 * sample_pool_add_module - module @name, loaded at @base, joins the draw
 * with table @t (not yet seeded; the pool owns it from now, even on
 * failure) and @copy, the @len bytes of its text from @lo as they were
 * decoded (malloc'd; owned too): what a site's bytes must still be at a
 * hit.  Returns 0, -EEXIST (that module at that base is in), -ENOMEM.
 */
int sample_pool_add_module(struct sample_pool *p, const char *name, uint64_t base,
			   struct sample_table *t, uint64_t lo, uint8_t *copy, size_t len);

/*
 * sample_pool_remove_module - module @name at @base went away: its sites
 * leave the draw for good.  Returns its sites still live then, or
 * -ENOENT.
 */
long sample_pool_remove_module(struct sample_pool *p, const char *name, uint64_t base);

/* Modules in the pool, and the @i-th one's name, base and live sites. */
size_t sample_pool_modules(const struct sample_pool *p);
const char *sample_pool_module(const struct sample_pool *p, size_t i, uint64_t *base, size_t *live);

/*
 * sample_pool_draw - the next site, uniformly over every live site of
 * the pool (the module's and the vmlinux's alike), at run-time address
 * *@at.  NULL when none is live.
 */
const struct sample_site *sample_pool_draw(struct sample_pool *p, uint64_t *at);

/*
 * sample_pool_find - the site at run-time address @at (retired or not),
 * or NULL; *@expect (may be NULL) gets the bytes it was decoded from
 * (its module's copy; NULL for a vmlinux site: the vmlinux holds them).
 */
const struct sample_site *sample_pool_find(struct sample_pool *p, uint64_t at,
					   const uint8_t **expect);

/* sample_pool_retire - retire the site at run-time address @at (sample_table_retire's returns). */
int sample_pool_retire(struct sample_pool *p, uint64_t at);

/* sample_pool_live - live sites in the whole pool. */
size_t sample_pool_live(const struct sample_pool *p);

struct sym;

/*
 * sample_table_keep_functions - retire every site that is not in a
 * function (by @sym's symbols) whose name sample_patterns_match
 * @patterns: sampling cut down to the code a user is after.  Sorts the
 * table.  Returns how many sites it retired.
 */
size_t sample_table_keep_functions(struct sample_table *t, struct sym *sym, const char *patterns);

/*
 * sample_marked_function - whether @name is one of the kernel's helpers
 * whose access is marked though its instruction is a plain MOV (atomic_t
 * reads and sets, spinlock and bit-lock unlocks, test_bit): KCSAN would
 * not call two of them a race.  sample_access_marked - whether the access at @pc (@after: @pc
 * is just past it) was inlined from one, by @sym's inline frames.
 */
bool sample_marked_function(const char *name);
bool sample_access_marked(struct sym *sym, uint64_t pc, bool after);

#endif /* CSAN_WATCH_SAMPLE_SITES_H */
