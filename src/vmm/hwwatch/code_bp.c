/* code_bp.c: execution breakpoints in the debug registers, beside the data watches. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <pthread.h>
#include <sys/ioctl.h>

#include <linux/kvm.h>

#include "vmm/base/log.h"
#include "vmm/hwwatch/engine.h"
#include "vmm/hwwatch/hw_watch.h"
#include "vmm/kvm/vcpu.h"
#include "vmm/kvm/vm.h"
#include "watch/debugreg.h"

/*
 * Sampling (--watch=sample, vmm/sample/) keeps a few execution
 * breakpoints on memory-accessing instructions of the guest's kernel and
 * moves them every few milliseconds.  They take debug registers from the
 * same allocator as the data watches, each under an owner of its own
 * (HW_CODE_TICKET), so a data watch armed at a hit gets what they leave,
 * and both reach every vCPU through the same load (dr_share.c), which
 * keeps the guest's own breakpoints in the slots nobody else holds.
 */

/* X86_EFLAGS_RF: the next instruction's breakpoints do not fire (SDM Vol. 3A, 2.3). */
#define RFLAGS_RF (1ull << 16)
/* X86_EFLAGS_TF: a single-step #DB after the next instruction. */
#define RFLAGS_TF (1ull << 8)

void hw_watch_set_code_hit(struct hw_engine *hw, hw_code_hit_fn fn, void *ctx)
{
	hw->code_hit = fn;
	hw->code_ctx = ctx;
}

int hw_code_breakpoints_set(struct vm *vm, const uint64_t *addrs, unsigned n, unsigned *loaded)
{
	struct hw_engine *hw = vm->hw;
	unsigned i, got = 0;
	char why[128];

	if (n > HW_CODE_MAX)
		n = HW_CODE_MAX;
	pthread_mutex_lock(&hw->lock);
	for (i = 0; i < HW_CODE_MAX; i++)
		hw_put_slots(hw, HW_CODE_TICKET(i));
	for (i = 0; i < n; i++) {
		unsigned idx;

		if (dr_alloc_free_count(&hw->alloc) == 0 ||
		    dr_alloc_get(&hw->alloc, HW_CODE_TICKET(i), 1, &idx) < 0) {
			hw->code_short += n - i;
			break;
		}
		hw->slots[idx] = (struct dr_slot){
			.armed = true,
			.kind = DR_KIND_EXEC,
			.addr = addrs[i],
			.len = 1,
		};
		got++;
	}
	if (dr7_encode(hw->slots, &hw->dr7, why, sizeof(why)) < 0)
		hw->dr7 = 0; /* cannot happen: exec slots of length 1 are always aligned */
	hw->gen++;
	hw->ncode = got;
	hw->code_loads++;
	pthread_mutex_unlock(&hw->lock);
	*loaded = got;
	return hw_apply_all(vm);
}

/*
 * Resume @vcpu at the instruction it stopped on with RF set: the CPU then
 * skips instruction breakpoints for that one instruction and clears RF
 * after it, so the breakpoint still fires on its next execution.
 */
static int resume_with_rf(struct vcpu *vcpu, struct kvm_regs *r)
{
	r->rflags |= RFLAGS_RF;
	if (ioctl(vcpu->fd, KVM_SET_REGS, r) == 0)
		return VCPU_RESUME;
	log_error_errno(errno, "vCPU %u: cannot set RFLAGS.RF to go past a code breakpoint",
			vcpu->id);
	vm_end(vcpu->vm, VM_END_HOST_ERROR, 0, 0);
	return VCPU_STOP;
}

/*
 * Where a KVM (or the CPU under it) does not honour RF, go past the
 * instruction with its breakpoint off on this vCPU alone and a single
 * step; the step's exit puts the breakpoints back (hw_code_step_done).
 */
static int resume_with_step(struct vcpu *vcpu, struct hw_vcpu *hv, unsigned slot)
{
	struct kvm_guest_debug dbg = hv->dbg;

	dbg.arch.debugreg[7] = dr7_copy_slot(dbg.arch.debugreg[7], 0, slot);
	dbg.control |= vcpu->vm->hw->step_control;
	if (ioctl(vcpu->fd, KVM_SET_GUEST_DEBUG, &dbg) == 0) {
		hv->stepping = true;
		return VCPU_RESUME;
	}
	log_error_errno(errno, "vCPU %u: KVM_SET_GUEST_DEBUG to step past a code breakpoint",
			vcpu->id);
	vm_end(vcpu->vm, VM_END_HOST_ERROR, 0, 0);
	return VCPU_STOP;
}

int hw_code_step_done(struct vcpu *vcpu)
{
	struct hw_vcpu *hv = hw_vcpu(vcpu->vm->hw, vcpu);

	hv->stepping = false;
	if (ioctl(vcpu->fd, KVM_SET_GUEST_DEBUG, &hv->dbg) == 0)
		return VCPU_RESUME;
	log_error_errno(errno, "vCPU %u: KVM_SET_GUEST_DEBUG after a step past a code breakpoint",
			vcpu->id);
	vm_end(vcpu->vm, VM_END_HOST_ERROR, 0, 0);
	return VCPU_STOP;
}

/*
 * KVM steps by setting the guest's trap flag, and the engine's next
 * KVM_SET_GUEST_DEBUG without SINGLESTEP takes it off: at the step's #DB,
 * or when a load (a draw, a pause, a watch) drops the step.  But an
 * exception taken mid-step (or an interrupt, where KVM lacks
 * KVM_GUESTDBG_BLOCKIRQ) has pushed RFLAGS with the flag in its frame,
 * out of KVM's reach: if a load drops the step while the handler runs,
 * the handler's IRET brings the flag back, and the #DB comes after the
 * instruction it returns to, with no step of ours running.  Handed to
 * Linux, that is a kernel single step it never asked for, at which it
 * warns (exc_debug_kernel); in the A/B benchmark, whose pauses drop
 * steps, six such #DBs went to the guest and the kernel then
 * triple-faulted (docs/BENCHMARKS.md).  So a step given up away from its
 * instruction (the vCPU in a handler) is counted, VM-wide (the task may
 * take its IRET on another vCPU), and a single-step #DB in kernel code
 * with the trap flag set and no step running takes one back: the flag
 * off, no #DB.  Our steps are of kernel text; one in user code is the
 * guest's own.  A step given up at its instruction leaves no frame: KVM
 * takes the flag off before it runs.  What this can take wrongly: a
 * kernel single step of the guest's own (kgdb) while a given-up step's
 * frame never returned (its task killed), once per such step.
 */
int hw_code_late_step(struct vcpu *vcpu)
{
	struct hw_engine *hw = vcpu->vm->hw;
	struct kvm_regs r;
	bool ours = false;

	if ((int64_t)vcpu->run->debug.arch.pc >= 0)
		return VCPU_DEFAULT;
	/* No step given up: the guest's own, without reading its registers. */
	if (!__atomic_load_n(&hw->steps_given_up, __ATOMIC_RELAXED))
		return VCPU_DEFAULT;
	if (ioctl(vcpu->fd, KVM_GET_REGS, &r) < 0)
		goto fail;
	if (!(r.rflags & RFLAGS_TF))
		return VCPU_DEFAULT;
	pthread_mutex_lock(&hw->lock);
	if (__atomic_load_n(&hw->steps_given_up, __ATOMIC_RELAXED)) {
		__atomic_fetch_sub(&hw->steps_given_up, 1, __ATOMIC_RELAXED);
		hw->code_late_steps++;
		ours = true;
	}
	pthread_mutex_unlock(&hw->lock);
	if (!ours)
		return VCPU_DEFAULT;
	r.rflags &= ~RFLAGS_TF;
	if (ioctl(vcpu->fd, KVM_SET_REGS, &r) < 0)
		goto fail;
	return VCPU_RESUME;
fail:
	log_error_errno(errno, "vCPU %u: cannot read or clear the trap flag at a single-step #DB",
			vcpu->id);
	vm_end(vcpu->vm, VM_END_HOST_ERROR, 0, 0);
	return VCPU_STOP;
}

/* The same registers as at this vCPU's last hit, RF aside: the instruction never ran. */
static bool same_stop(const struct kvm_regs *a, const struct kvm_regs *b)
{
	struct kvm_regs x = *a, y = *b;

	x.rflags &= ~RFLAGS_RF;
	y.rflags &= ~RFLAGS_RF;
	return memcmp(&x, &y, sizeof(x)) == 0;
}

int hw_code_exit(struct vcpu *vcpu, unsigned exec_hits)
{
	struct hw_engine *hw = vcpu->vm->hw;
	struct hw_vcpu *hv = hw_vcpu(hw, vcpu);
	struct kvm_regs r;
	uint64_t addr = 0;
	unsigned i, slot = 0;
	bool again, first;
	int rc = VCPU_RESUME;

	/* One instruction stops once, whichever of its slots (the same address twice) fired. */
	for (i = 0; i < DR_NUM_SLOTS && !addr; i++)
		if ((exec_hits & (1u << i)) && hv->tickets[i] >= HW_CODE_TICKET_BASE) {
			addr = hv->slots[i].addr;
			slot = i;
		}
	if (!addr)
		return VCPU_DEFAULT;
	if (ioctl(vcpu->fd, KVM_GET_REGS, &r) < 0) {
		log_error_errno(errno, "vCPU %u: KVM_GET_REGS at a code breakpoint", vcpu->id);
		vm_end(vcpu->vm, VM_END_HOST_ERROR, 0, 0);
		return VCPU_STOP;
	}
	/*
	 * Stopped again with every register as it was, though it resumed
	 * with RF: RF was not honoured (or a spin loop came round with
	 * nothing changed; stepping is right for it too).  From now on the
	 * engine steps past its code breakpoints, said once.
	 */
	again = hv->code_stop_valid && same_stop(&r, &hv->code_stop);
	pthread_mutex_lock(&hw->lock);
	hw->code_hits++;
	first = again && !hw->code_step;
	if (again) {
		hw->code_step = true;
		hw->code_repeats++;
	}
	pthread_mutex_unlock(&hw->lock);
	if (first)
		log_warn("vCPU %u stopped twice at the code breakpoint at %#llx with every "
			 "register unchanged (RFLAGS.RF not honoured here, or a loop that changes "
			 "nothing): stepping past code breakpoints from now on",
			 vcpu->id, (unsigned long long)addr);
	/* A handler of an exception taken mid-step stopped at another one. */
	hw_code_step_give_up(vcpu);
	hv->code_stop = r;
	hv->code_stop_valid = true;
	/* A repeat is the same stop: it has been sampled. */
	if (!again && hw->code_hit)
		rc = hw->code_hit(vcpu, addr, hw->code_ctx);
	if (rc != VCPU_RESUME)
		return rc;
	if (__atomic_load_n(&hw->code_step, __ATOMIC_RELAXED))
		return resume_with_step(vcpu, hv, slot);
	/* The handler's own register reads and writes left RIP where it was. */
	return resume_with_rf(vcpu, &r);
}
