/* status_line.c: a live progress line on stderr while a guest runs. */
#include "config.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "csan/abi.h"
#include "vmm/base/clock.h"
#include "vmm/base/log.h"
#include "vmm/console/status_line.h"
#include "vmm/kvm/vm.h"

/* Back to column 0, and erase to the end of the line (ECMA-48 EL). */
#define CR_ERASE "\r\033[K"

/*
 * The state lives in this file, not in struct vm: there is one stderr per
 * process, and the threads that must hide the line (vCPUs printing
 * reports, the console) have no business knowing which run draws it.
 * Every field is read and written under stderr's stdio lock (flockfile),
 * the lock reports already print under, so a draw can never land inside
 * a report and a hide can never miss a line being drawn.
 */
static struct {
	bool active; /* between begin and end */
	bool drawn;  /* the line is on the terminal now */
	int64_t start_ms;
	int64_t quiet_until_ms; /* no draw before this: something else printed */
	int64_t next_ms;	/* the next redraw */
	struct status_sample prev;
} line;

/*
 * stderr's stdio lock orders the line against everything else printed;
 * the mutex inside it is what ThreadSanitizer can see (it does not model
 * flockfile), and costs nothing next to the terminal write.
 */
static pthread_mutex_t line_mutex = PTHREAD_MUTEX_INITIALIZER;

static void line_lock(void)
{
	flockfile(stderr);
	pthread_mutex_lock(&line_mutex);
}

static void line_unlock(void)
{
	pthread_mutex_unlock(&line_mutex);
	funlockfile(stderr);
}

bool status_line_wanted(bool quiet)
{
	const char *term = getenv("TERM");

	/* TERM=dumb (or none): a tty that cannot move the cursor, or a relay of one. */
	return !quiet && isatty(STDERR_FILENO) && term && term[0] && strcmp(term, "dumb");
}

static double per_second(uint64_t now, uint64_t then, int64_t ms)
{
	return ms > 0 && now >= then ? (double)(now - then) * 1000.0 / (double)ms : 0.0;
}

int status_line_format(char *buf, size_t len, const struct status_sample *now,
		       const struct status_sample *prev, bool hw)
{
	int64_t dt = now->ms - prev->ms;
	char arms[48] = "";

	if (hw)
		snprintf(arms, sizeof(arms), ", %.0f hw arms/s",
			 per_second(now->hw_armed, prev->hw_armed, dt));
	return snprintf(buf, len, LOG_PREFIX "%.1f s, %.0f watchpoints/s%s, %" PRIu64 " race%s",
			(double)now->ms / 1000.0,
			per_second(now->setup_watchpoints, prev->setup_watchpoints, dt), arms,
			now->races, now->races == 1 ? "" : "s");
}

/* What the caller of status_line_attach reads the counts with. */
static status_sample_fn sampler;
static void *sampler_ctx;

/*
 * Read outside the stderr lock: the sampler may take the report log's
 * lock, which reports hold while they take stderr's.
 */
static void sample(struct vm *vm, int64_t ms, struct status_sample *s)
{
	memset(s, 0, sizeof(*s));
	sampler(vm, sampler_ctx, s);
	s->ms = ms;
}

static void status_line_begin(struct vm *vm)
{
	int64_t t = clock_now_ms();

	line_lock();
	__atomic_store_n(&line.active, true, __ATOMIC_RELAXED);
	line.drawn = false;
	line.start_ms = t;
	line.quiet_until_ms = t + STATUS_LINE_QUIET_MS;
	line.next_ms = line.quiet_until_ms;
	line_unlock();
	sample(vm, 0, &line.prev);
	/* From here every message and console line erases the line first. */
	log_set_before_output(status_line_hide);
}

static int status_line_tick(struct vm *vm)
{
	struct status_sample now, prev;
	char text[160];
	int64_t t = clock_now_ms(), wait;

	if (!__atomic_load_n(&line.active, __ATOMIC_RELAXED))
		return -1;
	/* vCPU threads move next_ms and quiet_until_ms (status_line_hide): under stderr's lock. */
	line_lock();
	wait = line.next_ms - t;
	prev = line.prev;
	line_unlock();
	if (wait > 0)
		return (int)wait;
	sample(vm, t - line.start_ms, &now);
	status_line_format(text, sizeof(text), &now, &prev,
			   __atomic_load_n(&vm->watch_hw, __ATOMIC_RELAXED) != 0);
	line_lock();
	if (t >= line.quiet_until_ms) {
		fputs(CR_ERASE, stderr);
		fputs(text, stderr);
		fflush(stderr);
		line.drawn = true;
		line.prev = now;
		line.next_ms = t + STATUS_LINE_PERIOD_MS;
	} else {
		line.next_ms = line.quiet_until_ms;
	}
	wait = line.next_ms - t;
	line_unlock();
	return (int)wait;
}

void status_line_hide(void)
{
	/* Unlocked peek: a run without a line pays nothing per console line. */
	if (!__atomic_load_n(&line.active, __ATOMIC_RELAXED))
		return;
	line_lock();
	if (line.drawn) {
		fputs(CR_ERASE, stderr);
		fflush(stderr);
		line.drawn = false;
	}
	line.quiet_until_ms = clock_now_ms() + STATUS_LINE_QUIET_MS;
	line_unlock();
}

static void status_line_end(void)
{
	log_set_before_output(NULL);
	line_lock();
	if (line.drawn) {
		fputs(CR_ERASE, stderr);
		fflush(stderr);
	}
	line.drawn = false;
	__atomic_store_n(&line.active, false, __ATOMIC_RELAXED);
	line_unlock();
}

static int begin_hook(struct vm *vm, struct vcpu *vcpu, void *ctx)
{
	(void)vcpu;
	(void)ctx;
	status_line_begin(vm);
	return 0;
}

static int tick_hook(struct vm *vm, struct vcpu *vcpu, void *ctx)
{
	(void)vcpu;
	(void)ctx;
	return status_line_tick(vm);
}

static int end_hook(struct vm *vm, struct vcpu *vcpu, void *ctx)
{
	(void)vm;
	(void)vcpu;
	(void)ctx;
	status_line_end();
	return 0;
}

int status_line_attach(struct vm *vm, status_sample_fn fn, void *ctx, char *why, size_t whylen)
{
	int r;

	sampler = fn;
	sampler_ctx = ctx;
	r = vm_hook_add(vm, VM_HOOK_RUN_START, "status line", begin_hook, NULL, why, whylen);
	if (!r)
		r = vm_hook_add(vm, VM_HOOK_TICK, "status line", tick_hook, NULL, why, whylen);
	if (!r)
		r = vm_hook_add(vm, VM_HOOK_RUN_ENDING, "status line", end_hook, NULL, why, whylen);
	return r;
}
