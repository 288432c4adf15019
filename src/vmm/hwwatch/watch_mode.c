/* watch_mode.c: soft or hardware watchpoints, as asked for at run time. */
#include "config.h"

#include <errno.h>
#include <stdio.h>

#include "csan/abi.h"
#include "vmm/kvm/probe.h"
#include "vmm/kvm/vm.h"
#include "vmm/hwwatch/watch_mode.h"
#include "watch/report_log.h"

bool watch_mode_hw(const struct vm *vm)
{
	return __atomic_load_n(&vm->watch_hw, __ATOMIC_SEQ_CST) != 0;
}

const char *watch_mode_name(const struct vm *vm)
{
	if (vm->watch_sample)
		return "sample";
	return watch_mode_hw(vm) ? "hw" : "soft";
}

/*
 * Why this host cannot run hw mode, or NULL when it can.  Unless the
 * caller of guest_run knew, found at the first switch to hw mode (probe.c:
 * a throw-away VM, milliseconds natively, 0.1 s in the emulated host), so
 * a run that stays in soft mode does not wait for it at start-up.
 */
static const char *hw_unavailable(struct vm *vm)
{
	pthread_mutex_lock(&vm->hw_probe_lock);
	if (!vm->hw_probed) {
		char why[sizeof(vm->hw_unavailable)];

		if (probe_data_watchpoints(why, sizeof(why)) != 1)
			snprintf(vm->hw_unavailable, sizeof(vm->hw_unavailable), "%s", why);
		vm->hw_probed = true;
	}
	pthread_mutex_unlock(&vm->hw_probe_lock);
	return vm->hw_unavailable[0] ? vm->hw_unavailable : NULL;
}

int watch_mode_set(struct vm *vm, bool hw, char *why, size_t whylen)
{
	if (vm->watch_sample) {
		snprintf(why, whylen,
			 "this run samples (--watch=sample) from start to end; run "
			 "again with --watch=%s",
			 hw ? "hw" : "soft");
		return -ENOTSUP;
	}
	if (hw && hw_unavailable(vm)) {
		snprintf(why, whylen, "hardware watchpoints are unavailable on this host: %s",
			 vm->hw_unavailable);
		return -ENOTSUP;
	}
	if (hw && vm->watch_hw_prepare) {
		int rc = vm->watch_hw_prepare(vm, why, whylen);

		if (rc)
			return rc;
	}
	__atomic_store_n(&vm->watch_hw, hw ? 1 : 0, __ATOMIC_SEQ_CST);
	/* The guest learns of it in its own way (the csan guest: its control block). */
	if (vm->watch_mode_changed)
		vm->watch_mode_changed(vm);
	/* Reports from now on, and the summary, say which mode found them. */
	if (vm->reports)
		report_log_set_mode(vm->reports, hw);
	return 0;
}
