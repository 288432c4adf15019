/* report.c: what the engine adds to a report, and its counters at the end of a run. */
#include "config.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "vmm/base/log.h"
#include "vmm/hwwatch/engine.h"
#include "vmm/hwwatch/hw_watch.h"
#include "vmm/kvm/vm.h"

/*
 * A watcher's report follows its disarm: the disarmed watch waits in its
 * vCPU's last_disarmed until then, and the report's hw_ticket, which the
 * guest could forge, must name it.
 */
void hw_watch_complete_report(struct vm *vm, unsigned cpu, struct csan_hc_report *r)
{
	struct hw_engine *hw = vm->hw;
	struct hw_armed done;
	unsigned i;

	if (!hw || cpu >= hw->ncpus || !r->hw_ticket)
		return;
	pthread_mutex_lock(&hw->lock);
	done = hw->vcpus[cpu].last_disarmed;
	if (done.ticket == r->hw_ticket)
		hw->vcpus[cpu].last_disarmed.ticket = 0; /* one report per watch */
	pthread_mutex_unlock(&hw->lock);
	if (done.ticket != r->hw_ticket || !done.have_hit)
		return;
	for (i = 0; i < CSAN_REPORT_MAX_SIDES && i < r->nsides; i++) {
		struct csan_report_side *s = &r->side[i];

		if (s->mechanism == CSAN_MECH_HW_DEBUGREG && s->nret == 0) {
			s->ip = done.hit.ip;
			s->flags = done.hit.ip_after ? CSAN_SIDE_IP_AFTER : 0;
			s->nret = done.hit.nret;
			memcpy(s->ret, done.hit.ret, done.hit.nret * sizeof(s->ret[0]));
		} else if (s->mechanism == CSAN_MECH_SOFT_WATCH && s->cpu == done.hit.cpu &&
			   s->context == done.hit.context && i == 0) {
			/* side[0] is the racing access; the watcher is side[1]. */
			s->mechanism = CSAN_MECH_SOFT_AND_HW;
		}
	}
}

void hw_watch_print_stats(struct vm *vm, FILE *f)
{
	struct hw_engine *hw = vm->hw;

	if (!hw)
		return;
	pthread_mutex_lock(&hw->lock);
	if (hw->arms || hw->no_slot || hw->partial || hw->foreign_exits)
		fprintf(f,
			LOG_PREFIX
			"hardware watches: %" PRIu64 " armed, %" PRIu64
			" without a free debug register, %" PRIu64 " partly (%" PRIu64
			" bytes not hardware-watched), %" PRIu64 " hits (+%" PRIu64
			" after their watch ended, %" PRIu64 " under data_race(), %" PRIu64
			" by the sanitizer itself), %" PRIu64 " debug exits not ours; guest's own"
			" breakpoints: %" PRIu64 " loads gave one way to ours, %" PRIu64
			" restored after KVM saved ours as the guest's; %" PRIu64
			" times a vCPU stopped trapping on a watch it had hit; mean arm %.1f us,"
			" disarm %.1f us, %.1f register loads per arm+disarm (%u vCPUs), %" PRIu64
			" kicks sent again\n",
			hw->arms, hw->no_slot, hw->partial, hw->uncovered_bytes, hw->hits,
			hw->late_hits, hw->excused, hw->runtime_hits, hw->foreign_exits,
			hw->guest_clashes, hw->guest_repairs, hw->mutes,
			hw->arms ? (double)hw->arm_ns / (double)hw->arms / 1e3 : 0.0,
			hw->disarms ? (double)hw->disarm_ns / (double)hw->disarms / 1e3 : 0.0,
			hw->arms ? (double)__atomic_load_n(&hw->loads, __ATOMIC_RELAXED) /
					   (double)hw->arms
				 : 0.0,
			vm->ncpus, __atomic_load_n(&vm->rekicks, __ATOMIC_RELAXED));
	/* --watch=sample's code breakpoints: their loads are in the register loads above. */
	if (hw->code_loads)
		fprintf(f,
			LOG_PREFIX "code breakpoints: %" PRIu64
				   " sets loaded on every vCPU, %" PRIu64 " hits (%" PRIu64
				   " stops again with nothing changed), %" PRIu64
				   " asked for without a free debug register; gone past with %s; %" PRIu64
				   " late #DBs of steps given up, kept from the guest\n",
			hw->code_loads, hw->code_hits, hw->code_repeats, hw->code_short,
			hw->code_step ? "a single step" : "RFLAGS.RF", hw->code_late_steps);
	/* Rare, and then the report's access kind may be wrong: say why. */
	if (hw->undecoded)
		fprintf(f,
			LOG_PREFIX
			"hardware watches: %" PRIu64 " hit%s whose instruction was "
			"not found (read or write told by the value, which a write of the same "
			"bytes hides); the last: %s\n",
			hw->undecoded, hw->undecoded == 1 ? "" : "s", hw->undecoded_why);
	pthread_mutex_unlock(&hw->lock);
}
