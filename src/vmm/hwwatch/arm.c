/* arm.c: arming and disarming a watch on every vCPU, for either guest's way of asking. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "vmm/base/clock.h"
#include "vmm/hwwatch/engine.h"
#include "vmm/hwwatch/hw_watch.h"
#include "vmm/kvm/vcpu.h"
#include "vmm/kvm/vm.h"

/*
 * A guest asks for a hardware watch around each of its soft watches (the
 * bundled guest by hypercall, guest/csan/hc_hw.c; a Linux guest through
 * its KCSAN watchpoints, guest/linux/linux_watch.c).  The watch is in
 * force on every vCPU before the arm returns, so before the guest's delay
 * starts.  A data breakpoint traps after the access: the trapping vCPU
 * records what it can for the watch and goes on (debug_exit.c).  The
 * watcher learns of it at the disarm and reports; its report's hw_ticket
 * brings it back to the engine for the stack (report.c).
 */

static int arm(struct vcpu *vcpu, uint64_t addr, uint32_t *size, uint32_t access, uint32_t *ticket,
	       uint32_t *status)
{
	struct vm *vm = vcpu->vm;
	struct hw_engine *hw = vm->hw;
	struct hw_armed *slot = NULL;
	uint64_t t0 = clock_now_ns(), value;
	unsigned i;
	int rc;

	value = hw_read_value(vcpu, addr, *size);

	pthread_mutex_lock(&hw->lock);
	for (i = 0; i < HW_MAX_WATCHES && !slot; i++)
		if (!hw->armed[i].ticket)
			slot = &hw->armed[i];
	if (!slot) {
		hw->no_slot++;
		*status = CSAN_HW_NO_SLOT;
	} else {
		/* The top of the ticket space names code breakpoints (code_bp.c). */
		if (++hw->next_ticket == 0 || hw->next_ticket >= HW_CODE_TICKET_BASE)
			hw->next_ticket = 1;
		*status = hw_take_slots(hw, hw->next_ticket, addr, size, access);
	}
	if (*status == CSAN_HW_ARMED) {
		*ticket = hw->next_ticket;
		*slot = (struct hw_armed){
			.ticket = *ticket,
			.cpu = vcpu->id,
			.addr = addr,
			.size = *size,
			.access = access,
			.value = value,
		};
		hw->arms++;
	}
	pthread_mutex_unlock(&hw->lock);

	if (*status == CSAN_HW_ARMED) {
		rc = hw_apply_everywhere(vcpu);
		if (rc != VCPU_RESUME)
			return rc;
		pthread_mutex_lock(&hw->lock);
		hw->arm_ns += clock_now_ns() - t0;
		pthread_mutex_unlock(&hw->lock);
	}
	return VCPU_RESUME;
}

bool hw_watch_caught(struct vcpu *vcpu, uint32_t ticket)
{
	struct hw_engine *hw = vcpu->vm->hw;
	struct hw_armed *w;
	bool caught;

	pthread_mutex_lock(&hw->lock);
	w = hw_find_armed(hw, ticket);
	caught = w && w->cpu == vcpu->id && w->have_hit;
	pthread_mutex_unlock(&hw->lock);
	return caught;
}

int hw_watch_arm(struct vcpu *vcpu, uint64_t addr, uint32_t *size, uint32_t access,
		 uint32_t *ticket, uint32_t *status)
{
	*ticket = 0;
	if (!__atomic_load_n(&vcpu->vm->watch_hw, __ATOMIC_RELAXED)) {
		*status = CSAN_HW_OFF;
		return VCPU_RESUME;
	}
	return arm(vcpu, addr, size, access, ticket, status);
}

int hw_watch_arm_host(struct vcpu *vcpu, uint64_t addr, uint32_t *size, uint32_t access,
		      uint32_t *ticket, uint32_t *status)
{
	*ticket = 0;
	return arm(vcpu, addr, size, access, ticket, status);
}

int hw_watch_disarm(struct vcpu *vcpu, uint32_t ticket, struct hw_watch_result *res)
{
	struct vm *vm = vcpu->vm;
	struct hw_engine *hw = vm->hw;
	struct hw_armed *w, done;
	uint64_t t0 = clock_now_ns();
	int rc;

	pthread_mutex_lock(&hw->lock);
	w = hw_find_armed(hw, ticket);
	if (!w || w->cpu != vcpu->id || w->disarming) {
		pthread_mutex_unlock(&hw->lock);
		return -ENOENT;
	}
	w->disarming = true;
	hw_put_slots(hw, ticket);
	pthread_mutex_unlock(&hw->lock);

	/*
	 * Each vCPU loads the disarm between two KVM_RUNs, so by the time
	 * all have, every access that trapped under this watch has been
	 * recorded: only then are its results final.
	 */
	rc = hw_apply_everywhere(vcpu);
	if (rc != VCPU_RESUME)
		return rc;
	pthread_mutex_lock(&hw->lock);
	w = hw_find_armed(hw, ticket);
	done = *w;
	w->ticket = 0;
	hw_vcpu(hw, vcpu)->last_disarmed = done;
	hw->disarms++;
	hw->disarm_ns += clock_now_ns() - t0;
	pthread_mutex_unlock(&hw->lock);

	memset(res, 0, sizeof(*res));
	res->hits = done.hits;
	res->have_hit = done.have_hit;
	res->hit = done.hit;
	return VCPU_RESUME;
}
