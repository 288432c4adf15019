/* native.c: hosting the guest runtime in a Linux process: CPU threads and reports. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "guest/runtime/port-posix-api.h"
#include "native/native.h"
#include "watch/sym.h"

static struct sym *sym;
static struct report_log *rlog;
static uint64_t bad_reports;

static void sink(const struct csan_hc_report *r)
{
	char why[256];

	if (report_log_submit(rlog, r, why, sizeof(why)) == -EINVAL) {
		__atomic_fetch_add(&bad_reports, 1, __ATOMIC_RELAXED);
		fprintf(stderr, "csan-native: the runtime sent a bad report record: %s\n", why);
	}
}

int native_open(const struct native_opts *o, char *why, size_t whylen)
{
	struct report_log_opts lo = { 0 };
	const char *exe = o->exe ? o->exe : "/proc/self/exe";
	int rc;

	rc = sym_open(exe, &sym, why, whylen);
	if (rc < 0)
		return rc;
	lo.sym = sym;
	lo.env.guest = exe;
	lo.env.mode = "soft";
	lo.text = o->text;
	lo.interval_ms = o->interval_ms;
	lo.now_ns = o->now_ns;
	lo.now_ctx = o->now_ctx;
	rc = report_log_new(&lo, &rlog);
	if (rc < 0) {
		snprintf(why, whylen, "report rlog: %s", strerror(-rc));
		sym_close(sym);
		sym = NULL;
		return rc;
	}
	csan_posix_set_report_sink(sink);
	return 0;
}

void native_close(bool summary)
{
	csan_posix_set_report_sink(NULL);
	if (rlog && summary)
		report_log_summary(rlog);
	report_log_free(rlog);
	sym_close(sym);
	rlog = NULL;
	sym = NULL;
}

struct report_log *native_log(void)
{
	return rlog;
}

uint64_t native_bad_reports(void)
{
	return __atomic_load_n(&bad_reports, __ATOMIC_RELAXED);
}

struct cpu_thread {
	pthread_t thread;
	unsigned cpu;
	void (*fn)(void *arg, unsigned cpu);
	void *arg;
};

static void cpu_body(void *p)
{
	struct cpu_thread *t = p;

	t->fn(t->arg, t->cpu);
}

static void *cpu_main(void *p)
{
	struct cpu_thread *t = p;

	csan_posix_run_on_cpu(t->cpu, cpu_body, t);
	return NULL;
}

int native_run_cpus(unsigned ncpus, void (*fn)(void *arg, unsigned cpu), void *arg)
{
	struct cpu_thread *t = calloc(ncpus, sizeof(*t));
	unsigned i, started = 0;
	int rc = 0;

	if (!t)
		return -ENOMEM;
	for (i = 0; i < ncpus; i++) {
		t[i] = (struct cpu_thread){ .cpu = i, .fn = fn, .arg = arg };
		rc = -pthread_create(&t[i].thread, NULL, cpu_main, &t[i]);
		if (rc < 0)
			break;
		started++;
	}
	for (i = 0; i < started; i++)
		pthread_join(t[i].thread, NULL);
	free(t);
	return rc;
}
