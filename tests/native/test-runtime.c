/* test-runtime.c: the guest runtime's algorithm, natively: real threads, real reports. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../unit/check.h"
#include "internal.h"
#include "native/native.h"
#include "port-posix-api.h"
#include "racy.h"

/*
 * The runtime as the guest has it (src/guest/runtime/), built with the
 * POSIX port: CPU 0 makes the access under test with a watchpoint forced
 * on it, CPU 1 looks at the watchpoint table while CPU 0 delays and then
 * makes the racing access (or none), and the reports come back through
 * src/watch/'s report log, symbolized against this very binary.  The
 * accessors are in racy.c, built with -fsanitize=thread.
 */

static FILE *out;
static char *out_buf;
static size_t out_len, out_mark;
static uint64_t fake_ns; /* the report log's clock */

static uint64_t test_clock(void *ctx)
{
	return fake_ns;
}

/* The reports printed since the last call, as text (static buffer). */
static const char *new_reports(void)
{
	static char text[65536];
	size_t n;

	fflush(out);
	n = out_len - out_mark;
	if (n >= sizeof(text))
		n = sizeof(text) - 1;
	memcpy(text, out_buf + out_mark, n);
	text[n] = '\0';
	out_mark = out_len;
	return text;
}

static unsigned count_of(const char *hay, const char *needle)
{
	unsigned n = 0;

	for (; (hay = strstr(hay, needle)); hay++)
		n++;
	return n;
}

/*
 * The per-CPU generator's state that makes its second number 0: the
 * first goes to the skip, the second takes nothing off the delay, so a
 * forced watch lasts the whole csan.udelay_task.
 */
static uint32_t full_delay_seed(void)
{
	const uint32_t a = 1664525u, c = 1013904223u;
	uint32_t inv = a, s1;
	int i;

	for (i = 0; i < 5; i++)
		inv *= 2 - a * inv; /* Newton: a * inv == 1 mod 2^32 */
	s1 = (0u - c) * inv;
	return (s1 - c) * inv;
}

/* --- one race: CPU 0 watches, CPU 1 looks and races --------------------------------- */

static void (*watcher_fn)(void);
static void (*racer_fn)(void);
static long watch_index; /* the table entry CPU 1 saw, -1: none */
static uint64_t watch_value;
static uint64_t ignore_entries; /* bit i: entry i is a test's fake, not the watch */
static int watcher_done;

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void race_cpu(void *arg, unsigned cpu)
{
	uint64_t start = now_us();

	if (cpu == 0) {
		csan_cpus[0].rand = full_delay_seed();
		csan_cpus[0].skip = 0;
		watcher_fn();
		__atomic_store_n(&watcher_done, 1, __ATOMIC_RELEASE);
		return;
	}
	csan_cpus[1].skip = LONG_MAX;
	while (watch_index < 0 && now_us() - start < 2000000 &&
	       !__atomic_load_n(&watcher_done, __ATOMIC_ACQUIRE)) {
		long i;

		for (i = 0; i < CSAN_WATCHPOINT_SLOTS; i++) {
			uint64_t v = __atomic_load_n(&csan_watchpoints[i], __ATOMIC_RELAXED);

			if (v > CSAN_WP_CONSUMED && !(ignore_entries >> i & 1)) {
				watch_value = v;
				watch_index = i;
				break;
			}
		}
	}
	if (watch_index >= 0 && racer_fn)
		racer_fn();
	while (!__atomic_load_n(&watcher_done, __ATOMIC_ACQUIRE))
		;
}

static int hold_clock; /* the rate-limit test moves the clock itself */

/* Run one race; returns the reports it printed. */
static const char *race(void (*watcher)(void), void (*racer)(void))
{
	/* Past the report log's interval: each race prints, unless held. */
	if (!hold_clock)
		fake_ns += 10ull * 1000000000u;
	watcher_fn = watcher;
	racer_fn = racer;
	watch_index = -1;
	watcher_done = 0;
	CHECK(native_run_cpus(2, race_cpu, NULL) == 0);
	return new_reports();
}

/*
 * A race that must be reported: on a loaded machine CPU 1 may lose its
 * processor for longer than the whole watch and miss it, so try again,
 * up to three times.  A broken runtime misses every time.
 */
static const char *race_reported(void (*watcher)(void), void (*racer)(void), const char *title)
{
	const char *r = "";
	int attempt;

	for (attempt = 0; attempt < 3; attempt++) {
		r = race(watcher, racer);
		if (strstr(r, title))
			break;
		fprintf(stderr, "test-runtime: no \"%s\" on attempt %d, trying again\n", title,
			attempt + 1);
	}
	return r;
}

/* The same for a race the report log must count (printed or not). */
static const char *race_counted(void (*watcher)(void), void (*racer)(void))
{
	const uint64_t before = report_log_total(native_log());
	const char *r = "";
	int attempt;

	for (attempt = 0; attempt < 3 && report_log_total(native_log()) == before; attempt++)
		r = race(watcher, racer);
	return r;
}

/* --- the accesses ------------------------------------------------------------------------ */

static uint64_t var_a __attribute__((aligned(64)));
static uint64_t var_b __attribute__((aligned(64)));

static void read_a(void)
{
	racy_read(&var_a);
}
static void write_a_42(void)
{
	racy_write(&var_a, 42);
}
static void write_a_same(void)
{
	racy_write(&var_a, var_a);
}
static void read_once_a(void)
{
	racy_read_once(&var_a);
}
static void assert_writer_a(void)
{
	racy_assert_writer(&var_a);
}
static void assert_access_a(void)
{
	racy_assert_access(&var_a);
}
/* A store the compiler did not instrument: only the value change shows it. */
static void uninstrumented_write_a(void)
{
	__atomic_store_n(&var_a, var_a + 1, __ATOMIC_RELAXED);
}

/* ASSERT_EXCLUSIVE_BITS(var_a, 0xff): the low byte is this CPU's alone. */
static void assert_bits_a(void)
{
	racy_assert_bits(&var_a, 0xff);
}

static void write_a_high_bits(void)
{
	racy_write(&var_a, var_a + 0x100);
}

static void write_a_low_bits(void)
{
	racy_write(&var_a, var_a + 1);
}

static void marked_access_forcing_scoped_check(void)
{
	csan_cpus[0].skip = 0;
	racy_read_once(&var_b); /* marked: the check falls through to the scoped ones */
	/* Only that check may report: the scope's own end must not watch. */
	csan_cpus[0].skip = LONG_MAX;
}

static void scoped_writer_a(void)
{
	/* Nor may the check that opens the scope. */
	csan_cpus[0].skip = LONG_MAX;
	racy_scoped_writer(&var_a, marked_access_forcing_scoped_check);
	/* The scope ended with the function: nothing left to check. */
	CHECK(csan_cpus[0].task.scoped == NULL);
}

/* --- tests -------------------------------------------------------------------------------- */

static void test_encoding_and_report(void)
{
	const char *r;

	var_a = 0;
	r = race_reported(read_a, write_a_42, "BUG: KCSAN: data-race in racy_read / racy_write");
	CHECK(watch_index >= 0);
	if (watch_index >= 0) {
		struct csan_wp d = { 0 };

		/* A fresh watchpoint takes the middle of its three entries: its own slot. */
		CHECK_EQ_U64(watch_index, csan_wp_slot((uintptr_t)&var_a) + 1);
		CHECK(csan_wp_decode(watch_value, &d));
		CHECK_EQ_U64(d.addr, (uintptr_t)&var_a & CSAN_WP_ADDR_MASK);
		CHECK_EQ_U64(d.size, 8);
		CHECK(!d.is_write);
	}
	CHECK_EQ_U64(count_of(r, "BUG: KCSAN: data-race in racy_read / racy_write"), 1);
	CHECK_CONTAINS(r, "write to 0x");
	CHECK_CONTAINS(r, "racy.c:");
	/* Both stacks go on past the access, into the functions that called it. */
	CHECK_CONTAINS(r, "read_a+0x");
	CHECK_CONTAINS(r, "write_a_42+0x");
	CHECK_CONTAINS(r, "value changed: 0x0000000000000000 -> 0x000000000000002a");
	/* Both entries are free again. */
	CHECK_EQ_U64(csan_watchpoints[csan_wp_slot((uintptr_t)&var_a) + 1], CSAN_WP_INVALID);
}

/* With its own entry taken the watch goes right, then left, then finds no room. */
static void test_slot_selection(void)
{
	const size_t slot = csan_wp_slot((uintptr_t)&var_a);
	/* Another address in the same slot, never accessed: it matches nothing. */
	const uint64_t fake = csan_wp_encode(
		(uintptr_t)&var_a + 8 * CSAN_SLOT_RANGE * CSAN_NUM_WATCHPOINTS, 8, true);
	const uint64_t no_capacity = csan_counter(CSAN_COUNTER_NO_CAPACITY);
	static const unsigned int expect[3] = { 2, 0, ~0u };
	unsigned int round;

	for (round = 0; round < 3; round++) {
		csan_watchpoints[slot + (round == 0 ? 1 : round == 1 ? 2 : 0)] = fake;
		ignore_entries |= 1ull << (slot + (round == 0 ? 1 : round == 1 ? 2 : 0));
		race(read_a, NULL);
		if (expect[round] == ~0u)
			CHECK_EQ_U64(watch_index, -1);
		else
			CHECK_EQ_U64(watch_index, slot + expect[round]);
	}
	CHECK_EQ_U64(csan_counter(CSAN_COUNTER_NO_CAPACITY), no_capacity + 1);
	csan_watchpoints[slot] = csan_watchpoints[slot + 1] = csan_watchpoints[slot + 2] = 0;
	ignore_entries = 0;
	CHECK_EQ_U64(count_of(new_reports(), "BUG:"), 0);
}

static void test_value_change_rule(void)
{
	const uint64_t skipped = csan_counter(CSAN_COUNTER_REPORTS_SKIPPED);
	uint64_t muted;
	const char *r;
	int i;

	/* A racing write of the value already there: no report by default... */
	var_a = 7;
	for (i = 0; i < 3 && csan_counter(CSAN_COUNTER_REPORTS_SKIPPED) == skipped; i++) {
		r = race(read_a, write_a_same); /* again if CPU 1 was descheduled past the watch */
		CHECK(watch_index >= 0);
		CHECK_EQ_U64(count_of(r, "BUG:"), 0);
	}
	CHECK_EQ_U64(csan_counter(CSAN_COUNTER_REPORTS_SKIPPED), skipped + 1);
	/* ...and one with csan.report_value_change_only=0. */
	csan_control.report_value_change_only = 0;
	r = race_reported(read_a, write_a_same, "BUG: KCSAN: data-race in racy_read / racy_write");
	csan_control.report_value_change_only = 1;
	CHECK_EQ_U64(count_of(r, "BUG: KCSAN: data-race in racy_read / racy_write"), 1);
	/* A racing read of a watched read is no race; a marked one neither. */
	r = race(read_a, read_a);
	CHECK_EQ_U64(count_of(r, "BUG:"), 0);
	/* A change nobody was seen making: the watcher reports it alone. */
	r = race_reported(read_a, uninstrumented_write_a, "race at unknown origin");
	CHECK_EQ_U64(count_of(r, "BUG: KCSAN: data-race in racy_read"), 1);
	CHECK_CONTAINS(r, "race at unknown origin");
	/*
	 * csan.report_unknown_origin=0 mutes those, counted as skipped, but
	 * never an assertion's: KCSAN reports a failed ASSERT_EXCLUSIVE_*()
	 * whoever changed the value (kernel/kcsan/core.c).
	 */
	csan_control.report_unknown_origin = 0;
	muted = csan_counter(CSAN_COUNTER_REPORTS_SKIPPED);
	for (i = 0; i < 3 && csan_counter(CSAN_COUNTER_REPORTS_SKIPPED) == muted; i++) {
		r = race(read_a, uninstrumented_write_a);
		CHECK_EQ_U64(count_of(r, "BUG:"), 0);
	}
	CHECK_EQ_U64(csan_counter(CSAN_COUNTER_REPORTS_SKIPPED), muted + 1);
	r = race_reported(assert_writer_a, uninstrumented_write_a,
			  "BUG: KCSAN: assert: race in racy_assert_writer");
	CHECK_CONTAINS(r, "race at unknown origin, with assert no writes");
	csan_control.report_unknown_origin = 1;
}

static void test_assert_scoping(void)
{
	const char *r;

	var_a = 1;
	/* ASSERT_EXCLUSIVE_WRITER: readers are fine, marked or not... */
	r = race(assert_writer_a, read_once_a);
	CHECK_EQ_U64(count_of(r, "BUG:"), 0);
	/* ...a writer is not. */
	r = race_reported(assert_writer_a, write_a_42,
			  "BUG: KCSAN: assert: race in racy_assert_writer");
	CHECK_EQ_U64(count_of(r, "BUG: KCSAN: assert: race in racy_assert_writer / racy_write"), 1);
	/* ASSERT_EXCLUSIVE_ACCESS: even a marked reader is a race. */
	r = race_reported(assert_access_a, read_once_a,
			  "BUG: KCSAN: assert: race in racy_assert_access");
	CHECK_EQ_U64(count_of(r, "BUG: KCSAN: assert: race in racy_assert_access / racy_read_once"),
		     1);
	/*
	 * The scoped form is checked on a later runtime entry of the same
	 * context (here a marked read of another variable), and reported
	 * at the function that opened the scope.
	 */
	var_a = 5;
	r = race_reported(scoped_writer_a, write_a_42,
			  "BUG: KCSAN: assert: race in racy_scoped_writer");
	CHECK_EQ_U64(count_of(r, "BUG: KCSAN: assert: race in racy_scoped_writer / racy_write"), 1);
	CHECK_CONTAINS(r, "assert no writes (scoped)");
	/* ASSERT_EXCLUSIVE_BITS: only a change under the mask is a race. */
	var_a = 0x1200;
	r = race(assert_bits_a, write_a_high_bits);
	CHECK(watch_index >= 0);
	CHECK_EQ_U64(count_of(r, "BUG:"), 0);
	r = race_reported(assert_bits_a, write_a_low_bits,
			  "BUG: KCSAN: assert: race in racy_assert_bits / racy_write");
	CHECK_CONTAINS(r, "bits changed: 0x0000000000000001 with mask 0x00000000000000ff");
}

static uint64_t setups(void)
{
	return csan_counter(CSAN_COUNTER_SETUP_WATCHPOINTS);
}

/* Every plain read is watched (skip_watch=0) unless an atomic region marks it. */
static void nestable_cpu(void *arg, unsigned cpu)
{
	uint64_t n = setups();

	racy_read(&var_b);
	CHECK_EQ_U64(setups(), n + 1);
	kcsan_nestable_atomic_begin();
	kcsan_nestable_atomic_begin();
	racy_read(&var_b);
	kcsan_nestable_atomic_end();
	racy_read(&var_b); /* still one level in */
	CHECK_EQ_U64(setups(), n + 1);
	kcsan_nestable_atomic_end();
	racy_read(&var_b);
	CHECK_EQ_U64(setups(), n + 2);
	/* An unbalanced end leaves the count at zero, not below. */
	kcsan_nestable_atomic_end();
	racy_read(&var_b);
	CHECK_EQ_U64(setups(), n + 3);
	/* A flat region is on or off, however often begun. */
	kcsan_flat_atomic_begin();
	kcsan_flat_atomic_begin();
	racy_read(&var_b);
	kcsan_flat_atomic_end();
	racy_read(&var_b);
	CHECK_EQ_U64(setups(), n + 4);
	/* kcsan_atomic_next(2): two marked, the third watched. */
	kcsan_atomic_next(2);
	racy_read(&var_b);
	racy_read(&var_b);
	CHECK_EQ_U64(setups(), n + 4);
	racy_read(&var_b);
	CHECK_EQ_U64(setups(), n + 5);
	/* data_race() turns checking off: the slow path is entered but sets nothing up. */
	kcsan_disable_current();
	racy_read(&var_b);
	/* An interrupt has its own context: checking is on there. */
	CHECK(csan_check_port());
	csan_posix_irq_enter();
	CHECK(csan_check_port());
	racy_read(&var_b);
	csan_posix_irq_exit();
	CHECK(csan_check_port());
	CHECK_EQ_U64(setups(), n + 6);
	racy_read(&var_b);
	kcsan_enable_current();
	CHECK_EQ_U64(setups(), n + 6);
}

static void test_nestable_atomics(void)
{
	const uint32_t skip = csan_control.skip_watch, delay = csan_control.udelay_task;
	const uint32_t delay_irq = csan_control.udelay_interrupt;

	csan_control.skip_watch = 0;
	csan_control.udelay_task = 1;
	csan_control.udelay_interrupt = 1;
	csan_cpus[0].skip = 0;
	CHECK(native_run_cpus(1, nestable_cpu, NULL) == 0);
	csan_control.skip_watch = skip;
	csan_control.udelay_task = delay;
	csan_control.udelay_interrupt = delay_irq;
}

/* The report log prints a race once per interval and counts every one. */
static void test_report_rate_limit(void)
{
	uint64_t total = report_log_total(native_log());
	const char *r;

	var_a = 0;
	r = race_reported(read_a, write_a_42, "BUG: KCSAN: data-race in racy_read / racy_write");
	CHECK_EQ_U64(count_of(r, "BUG: KCSAN: data-race in racy_read / racy_write"), 1);
	hold_clock = 1;
	var_a = 0;
	r = race_counted(read_a, write_a_42);
	CHECK_EQ_U64(count_of(r, "BUG:"), 0); /* the same race within 3 s: counted only */
	fake_ns += 2999ull * 1000000u;
	var_a = 0;
	r = race_counted(read_a, write_a_42);
	CHECK_EQ_U64(count_of(r, "BUG:"), 0);
	fake_ns += 2ull * 1000000u;
	var_a = 0;
	r = race_reported(read_a, write_a_42, "BUG: KCSAN: data-race in racy_read / racy_write");
	CHECK_EQ_U64(count_of(r, "BUG: KCSAN: data-race in racy_read / racy_write"), 1);
	/* Each race above stopped at its first counted report: four in all. */
	CHECK_EQ_U64(report_log_total(native_log()), total + 4);
	hold_clock = 0;
}

int main(void)
{
	struct native_opts o = { 0 };
	char why[512];

	out = open_memstream(&out_buf, &out_len);
	if (!out)
		return 99;
	o.text = out;
	o.interval_ms = REPORT_LOG_DEFAULT_INTERVAL_MS;
	o.now_ns = test_clock;
	if (native_open(&o, why, sizeof(why)) < 0) {
		fprintf(stderr, "test-runtime: %s\n", why);
		return 99;
	}
	/*
	 * Long watches, so CPU 1 sees each one; no other access is watched.
	 * Booleans as Linux's module parameters take them: y and N set a
	 * knob whose default is the other value (put back after).
	 */
	csan_init("csan.skip_watch=1000000000 csan.udelay_task=200000 csan.interrupt_watcher=y "
		  "csan.report_unknown_origin=N");
	CHECK(csan_control.interrupt_watcher == 1 && csan_control.report_unknown_origin == 0);
	csan_control.interrupt_watcher = 0;
	csan_control.report_unknown_origin = 1;
	test_nestable_atomics();
	test_encoding_and_report();
	test_slot_selection();
	test_value_change_rule();
	test_assert_scoping();
	test_report_rate_limit();
	CHECK_EQ_U64(native_bad_reports(), 0);
	native_close(false);
	fclose(out);
	if (check_failures)
		fputs(out_buf, stderr);
	free(out_buf);
	return check_exit_status("test-runtime");
}
