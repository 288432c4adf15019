/* hc_attach.c: the guest runtime's control block (CSAN_HC_ATTACH). */
#include "config.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>

#include "csan/abi.h"
#include "vmm/base/log.h"
#include "vmm/guest/csan/hc_attach.h"
#include "vmm/dev/hypercall.h"
#include "vmm/kvm/vm.h"
#include "vmm/guest/csan/csan_state.h"
#include "vmm/hwwatch/watch_mode.h"

/* The fixed part of struct csan_control, before the counters. */
#define CONTROL_HEAD_SIZE 48u
/* A block larger than this is not a csan_control of any version. */
#define CONTROL_MAX_SIZE 4096u

/* KCSAN's debugfs names, so the numbers read like /sys/kernel/debug/kcsan. */
static const char *const counter_names[] = CSAN_COUNTER_NAMES_INIT;
_Static_assert(sizeof(counter_names) / sizeof(counter_names[0]) == CSAN_COUNTER_MAX,
	       "a name for every counter");

/*
 * The block stays in guest RAM and the guest keeps writing it, so only
 * its place and header are checked here, once; later reads are bounded by
 * what was checked (ncounters), never by what the guest writes afterwards.
 */
static int hc_attach(struct vcpu *vcpu, uint32_t gpa)
{
	struct vm *vm = vcpu->vm;
	struct csan_state *cs = csan_state(vm);
	struct csan_hc_attach a;
	struct csan_control *c;
	uint32_t magic, size, ncounters;
	int rc;

	rc = hc_read_args(vcpu, CSAN_HC_ATTACH, gpa, &a, sizeof(a));
	if (rc != VCPU_RESUME)
		return rc;
	if (a.reserved)
		return hc_fail(vcpu, CSAN_HC_ATTACH, "reserved", "is %" PRIu32 ", not 0",
			       a.reserved);
	if (a.control & 7)
		return hc_fail(vcpu, CSAN_HC_ATTACH, "control",
			       "%#" PRIx64 " is not 8-byte aligned", a.control);
	if (a.size < CONTROL_HEAD_SIZE || a.size > CONTROL_MAX_SIZE)
		return hc_fail(vcpu, CSAN_HC_ATTACH, "size", "%" PRIu32 " is outside [%u, %u]",
			       a.size, CONTROL_HEAD_SIZE, CONTROL_MAX_SIZE);
	c = vm_gpa_to_hva(vm, a.control, a.size);
	if (!c)
		return hc_fail(vcpu, CSAN_HC_ATTACH, "control",
			       "[%#" PRIx64 ", +%" PRIu32 ") is not in guest RAM", a.control,
			       a.size);
	/*
	 * The header is read once into locals: another vCPU may rewrite the
	 * block while this one checks it, and a count re-read after its check
	 * could send later counter reads past the block (hostile guests do
	 * this on purpose; tests/vm/hostile-hypercalls.sh).
	 */
	magic = __atomic_load_n(&c->magic, __ATOMIC_RELAXED);
	size = __atomic_load_n(&c->size, __ATOMIC_RELAXED);
	ncounters = __atomic_load_n(&c->ncounters, __ATOMIC_RELAXED);
	if (magic != CSAN_CONTROL_MAGIC || size != a.size)
		return hc_fail(vcpu, CSAN_HC_ATTACH, "control",
			       "magic %#" PRIx32 " size %" PRIu32 ": not a csan_control block",
			       magic, size);
	if (ncounters > CSAN_CONTROL_MAX_COUNTERS || CONTROL_HEAD_SIZE + 8u * ncounters > a.size)
		return hc_fail(vcpu, CSAN_HC_ATTACH, "control",
			       "ncounters %" PRIu32 " does not fit", ncounters);
	/* One block per run: the first attach wins, a second is a guest bug. */
	if (!cs)
		return hc_fail(vcpu, CSAN_HC_ATTACH, "control", "not a csan guest");
	if (!__atomic_compare_exchange_n(&cs->control, &(struct csan_control *){ NULL }, c, false,
					 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		return hc_fail(vcpu, CSAN_HC_ATTACH, "control", "already attached");
	__atomic_store_n(&cs->control_ncounters, ncounters, __ATOMIC_SEQ_CST);
	__atomic_store_n(&cs->control_size, a.size, __ATOMIC_SEQ_CST);
	/* The host owns watch_hw: a mode chosen before the attach takes effect now. */
	csan_publish_watch_mode(vm);
	return VCPU_RESUME;
}

int hc_attach_register(struct vm *vm, struct csan_state *cs, char *why, size_t whylen)
{
	return hc_register(vm, CSAN_HC_ATTACH, "csan", hc_attach, cs, why, whylen);
}

uint64_t hc_attach_counter(struct vm *vm, enum csan_counter c)
{
	struct csan_state *cs = csan_state(vm);
	struct csan_control *ctl = csan_control(vm);

	/*
	 * control_ncounters is stored just after the CAS publishes control:
	 * a reader in between sees 0 counters and answers 0, which is true
	 * enough for a progress display.
	 */
	if (!ctl || (unsigned)c >= __atomic_load_n(&cs->control_ncounters, __ATOMIC_ACQUIRE))
		return 0;
	return __atomic_load_n(&ctl->counters[c], __ATOMIC_RELAXED);
}

void hc_attach_print_counters(struct vm *vm, FILE *f)
{
	struct csan_control *c = csan_control(vm);
	unsigned i, n;

	if (!c)
		return;
	n = __atomic_load_n(&csan_state(vm)->control_ncounters, __ATOMIC_SEQ_CST);
	if (n > CSAN_COUNTER_MAX)
		n = CSAN_COUNTER_MAX;
	fprintf(f, LOG_PREFIX "counters:");
	for (i = 0; i < n; i++)
		fprintf(f, " %s=%" PRIu64, counter_names[i],
			(uint64_t)__atomic_load_n(&c->counters[i], __ATOMIC_RELAXED));
	fprintf(f, "\n");
}

/*
 * Lock-free, because a switch (console or socket thread) can race with
 * the attach (a vCPU thread) or another switch: whoever writes the block
 * looks at the mode again afterwards and writes again if it changed
 * meanwhile, so the last store to the block always carries the last mode
 * asked for.  A block too small to have watch_hw (size 0 while the attach
 * is under way) is left alone; the attach publishes once its size is set.
 */
void csan_publish_watch_mode(struct vm *vm)
{
	struct csan_state *cs = csan_state(vm);
	struct csan_control *c = csan_control(vm);
	uint32_t mode;

	if (!c || __atomic_load_n(&cs->control_size, __ATOMIC_SEQ_CST) <
			  offsetof(struct csan_control, watch_hw) + sizeof(c->watch_hw))
		return;
	do {
		mode = watch_mode_hw(vm);
		__atomic_store_n(&c->watch_hw, mode, __ATOMIC_SEQ_CST);
	} while (watch_mode_hw(vm) != mode);
}
