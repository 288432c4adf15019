/* csan_profile.c: the bundled csan guest's profile: its hypercalls, its result line. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmm/base/log.h"
#include "vmm/dev/hypercall.h"
#include "vmm/dev/serial.h"
#include "vmm/guest/csan/hc_attach.h"
#include "vmm/guest/csan/csan_view.h"
#include "vmm/guest/csan/hc_basic.h"
#include "vmm/guest/csan/hc_hw.h"
#include "vmm/guest/csan/hc_report.h"
#include "vmm/guest/csan/csan_profile.h"
#include "vmm/guest/csan/csan_state.h"
#include "vmm/guest/profile.h"
#include "vmm/kvm/vm.h"

/* The prefix of the scenario result line (src/guest/include/scenario.h). */
#define CSAN_RESULT_PREFIX "csan-result: "

/* "scenario=NAME" (when one is chosen), "seed=N", then --append. */
static char *csan_cmdline(const char *scenario, uint64_t seed, const char *append, bool kaslr)
{
	char *s = NULL;
	int n;

	(void)kaslr; /* the bundled guest runs where it is linked: takes_kaslr is false */
	n = asprintf(&s, "%s%s%sseed=%" PRIu64 "%s%s", scenario ? "scenario=" : "",
		     scenario ? scenario : "", scenario ? " " : "", seed, append ? " " : "",
		     append ? append : "");
	return n < 0 ? NULL : s;
}

int csan_hypercalls_attach(struct vm *vm, char *why, size_t whylen)
{
	struct csan_state *cs = csan_state_new(vm, why, whylen);
	int r;

	if (!cs)
		return -ENOMEM;
	r = hc_attach_ports(vm, why, whylen);
	if (!r)
		r = hc_basic_register(vm, why, whylen);
	if (!r)
		r = hc_attach_register(vm, cs, why, whylen);
	if (!r)
		r = hc_report_register(vm, why, whylen);
	if (!r)
		r = hc_hw_register(vm, why, whylen);
	return r;
}

/*
 * The csan guest talks through the hypercall ports, which run/ attaches
 * to every image that carries the csan ABI note (this profile only runs
 * such images), and needs no device beyond the common VM.  A triple
 * fault is a fault (tests/vm/triple-fault.sh), so there is no exit hook.
 */
static int csan_setup(struct vm *vm, char *why, size_t whylen)
{
	(void)why;
	(void)whylen;
	/* The watch engine reads this guest through its control block. */
	csan_view_attach(vm);
	return 0;
}

/*
 * Keep the result line for --compare, which reads the guest's own timings
 * from it.  Every line is shown: this guest's reports come by hypercall,
 * not on its console.
 */
static enum console_verdict csan_console_line(struct vm *vm, const char *line, size_t len,
					      char *note, size_t notelen)
{
	struct csan_state *cs = csan_state(vm);
	size_t plen = sizeof(CSAN_RESULT_PREFIX) - 1;

	(void)note;
	(void)notelen;
	if (!cs || len < plen || memcmp(line, CSAN_RESULT_PREFIX, plen))
		return CONSOLE_SHOW;
	if (len > SERIAL_LINE_MAX)
		len = SERIAL_LINE_MAX;
	pthread_mutex_lock(&cs->result_lock);
	memcpy(cs->result, line, len);
	cs->result[len] = '\0';
	pthread_mutex_unlock(&cs->result_lock);
	return CONSOLE_SHOW;
}

static void csan_result_line(struct vm *vm, char *buf, size_t len)
{
	struct csan_state *cs = csan_state(vm);

	if (!len)
		return;
	if (!cs) {
		buf[0] = '\0';
		return;
	}
	pthread_mutex_lock(&cs->result_lock);
	snprintf(buf, len, "%s", cs->result);
	pthread_mutex_unlock(&cs->result_lock);
}

static void csan_watchpoint_counts(struct vm *vm, uint64_t *set_up, uint64_t *hw_armed)
{
	*set_up = hc_attach_counter(vm, CSAN_COUNTER_SETUP_WATCHPOINTS);
	*hw_armed = hc_attach_counter(vm, CSAN_COUNTER_HW_ARMED);
}

/*
 * The bundled guest's workload is its scenario, and its exit status the
 * scenario's verdict (1: the row's checks failed): a guest that ended
 * by itself always gave one.  A negative one (the ABI's field is signed)
 * reads as none given, which is a failure too.
 */
static void csan_summarize(struct vm *vm, struct guest_findings *f, FILE *out)
{
	(void)out;
	f->workload_expected = true;
	if (vm->outcome.end == VM_END_EXIT)
		f->workload_status = vm->outcome.guest_status;
}

const struct guest_profile csan_profile = {
	.name = "csan",
	.cmdline = csan_cmdline,
	.setup = csan_setup,
	.console_line = csan_console_line,
	.watchpoint_counts = csan_watchpoint_counts,
	.print_counters = hc_attach_print_counters,
	.result_line = csan_result_line,
	.summarize = csan_summarize,
	.watch_changed = csan_publish_watch_mode,
};
