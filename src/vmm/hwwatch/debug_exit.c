/* debug_exit.c: a debug exit: a hit on one of our watches, recorded, or the guest's own #DB. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include <linux/kvm.h>

#include "vmm/base/log.h"
#include "vmm/hwwatch/engine.h"
#include "vmm/hwwatch/hw_watch.h"
#include "vmm/kvm/guest_mem.h"
#include "vmm/kvm/vcpu.h"
#include "vmm/kvm/vm.h"
#include "watch/debugreg.h"
#include "watch/insn.h"
#include "watch/sym.h"
#include "watch/unwind.h"

/* Function bodies longer than this are decoded from just before the trap. */
#define HW_DECODE_MAX 65536

/*
 * The instruction that made the access: data breakpoints trap after it,
 * so decode forward from the start of its function (insn.h).  True with
 * @out filled when it was found, else false with why not in @why.
 */
static bool decode_access(struct vcpu *vcpu, uint64_t pc, struct insn_info *out, char *why,
			  size_t whylen)
{
	static __thread uint8_t code[HW_DECODE_MAX];
	struct insn_code c = { 0 };
	uint64_t start = 0, size = 0;

	if (vcpu->vm->sym && sym_function_at(vcpu->vm->sym, pc - 1, &start, &size, NULL) == 0 &&
	    pc > start && pc - start <= sizeof(code)) {
		c.addr = start;
		c.addr_is_start = true;
	} else {
		c.addr = pc - INSN_MAX_LEN;
	}
	c.len = guest_read_code(vcpu, c.addr, code, pc - c.addr);
	c.bytes = code;
	if (c.len != pc - c.addr) {
		snprintf(why, whylen, "read %zu of the %llu code bytes before RIP 0x%llx", c.len,
			 (unsigned long long)(pc - c.addr), (unsigned long long)pc);
		return false;
	}
	return insn_before_trap(&c, pc, out, why, whylen) == 0;
}

/*
 * What the guest was doing at the trap, read through its view (the
 * profile's: guest/csan/csan_view.c, guest/linux/linux_watch.c).  A guest
 * without one counts as a task with checking on: a race is then reported
 * rather than excused.
 */
static void read_guest(struct vcpu *vcpu, struct hw_watch_hit *hit)
{
	const struct hw_guest_view *view = vcpu->vm->hw->view;

	if (!view) {
		hit->context = CSAN_CTX_TASK;
		return;
	}
	hit->context = view->context(vcpu);
	hit->task_id = hit->context == CSAN_CTX_TASK ? view->task_id(vcpu) : 0;
	hit->excused = view->checking_disabled(vcpu, hit->context);
	hit->runtime = view->runtime_pc(vcpu->vm, vcpu->run->debug.arch.pc);
}

/* Describe the access that trapped on @vcpu for the watch @w (a copy). */
static void describe_hit(struct vcpu *vcpu, const struct hw_armed *w, uint64_t slot_addr,
			 struct hw_watch_hit *hit)
{
	struct vm *vm = vcpu->vm;
	uint64_t pcs[UNWIND_MAX_PCS];
	struct insn_info insn;
	struct csan_regs regs;
	char why[256];
	int n = 0;

	memset(hit, 0, sizeof(*hit));
	hit->cpu = vcpu->id;
	hit->addr = slot_addr > w->addr ? slot_addr : w->addr;
	read_guest(vcpu, hit);
	if (hit->excused || hit->runtime)
		return;
	if (decode_access(vcpu, vcpu->run->debug.arch.pc, &insn, why, sizeof(why))) {
		hit->ip = insn.addr;
		hit->size = insn.mem_size;
		hit->access = insn.writes ? CSAN_ACCESS_WRITE : 0;
		/* A locked read-modify-write is marked in KCSAN's sense. */
		if (insn.atomic && insn.writes)
			hit->access |= CSAN_ACCESS_ATOMIC | (insn.reads ? CSAN_ACCESS_COMPOUND : 0);
	} else {
		pthread_mutex_lock(&vm->hw->lock);
		vm->hw->undecoded++;
		snprintf(vm->hw->undecoded_why, sizeof(vm->hw->undecoded_why), "%s", why);
		pthread_mutex_unlock(&vm->hw->lock);
		hit->ip = vcpu->run->debug.arch.pc;
		hit->ip_after = true;
		/*
		 * A write-only watch traps on writes alone; a read-write one
		 * tells by the value, which a write of the same bytes hides.
		 */
		if (w->access & CSAN_ACCESS_WRITE)
			hit->access = hw_read_value(vcpu, w->addr, w->size) != w->value
					      ? CSAN_ACCESS_WRITE
					      : 0;
		else
			hit->access = CSAN_ACCESS_WRITE;
	}
	if (guest_get_regs(vcpu, &regs, NULL) < 0)
		memset(&regs, 0, sizeof(regs));
	regs.rip = vcpu->run->debug.arch.pc;
	if (vm->unw)
		n = unwind_stack(vm->unw, &regs, guest_unwind_read, vcpu, 0, pcs, UNWIND_MAX_PCS,
				 NULL);
	/* pcs[0] is the trap PC itself; the rest are the return addresses. */
	if (n > 1) {
		hit->nret = (uint32_t)(n - 1);
		memcpy(hit->ret, pcs + 1, hit->nret * sizeof(pcs[0]));
	}
}

/*
 * Not one of our watches: a single step, a guest's own breakpoint, a
 * slot we did not arm.  The guest would have taken #DB had we not been
 * debugging it, so it gets one, and the user hears of it.
 */
#define HW_FOREIGN_EXITS_SHOWN 10

static int foreign_debug_exit(struct vcpu *vcpu, const struct dr_exit *e)
{
	struct kvm_vcpu_events ev;
	struct kvm_debugregs dr;
	uint64_t nth, ours = 0;
	char what[128];
	unsigned i;

	pthread_mutex_lock(&vcpu->vm->hw->lock);
	nth = ++vcpu->vm->hw->foreign_exits;
	pthread_mutex_unlock(&vcpu->vm->hw->lock);
	/*
	 * A guest that single-steps itself or keeps its own breakpoints set
	 * makes these at the rate it runs: name the first few, count the
	 * rest (the "hardware watches" line at exit has the total), so the
	 * log cannot grow without bound.
	 */
	if (nth <= HW_FOREIGN_EXITS_SHOWN) {
		log_error("vCPU %u: debug exit that is not a csan-vmm watch (%s, DR6 %#llx, PC "
			  "%#llx): handed to the guest as #DB%s",
			  vcpu->id, dr_exit_describe(e, what, sizeof(what)),
			  (unsigned long long)vcpu->run->debug.arch.dr6,
			  (unsigned long long)vcpu->run->debug.arch.pc,
			  nth == HW_FOREIGN_EXITS_SHOWN ? "; further ones are only counted" : "");
	}
	/*
	 * The guest's handler reads DR6 to learn why it was called: give it
	 * what the CPU reported, without the status bits of the slots that
	 * were csan-vmm's (the guest never armed those), as a debugger stub
	 * does for exits it does not own.
	 */
	for (i = 0; i < DR_NUM_SLOTS; i++)
		if (hw_vcpu(vcpu->vm->hw, vcpu)->slots[i].armed)
			ours |= DR6_B(i);
	if (ioctl(vcpu->fd, KVM_GET_DEBUGREGS, &dr) < 0)
		goto fail;
	dr.dr6 = vcpu->run->debug.arch.dr6 & ~ours;
	/* The single step was ours (a step past a code breakpoint, or its late #DB). */
	if (!e->single_step)
		dr.dr6 &= ~DR6_BS;
	if (ioctl(vcpu->fd, KVM_SET_DEBUGREGS, &dr) < 0)
		goto fail;
	if (ioctl(vcpu->fd, KVM_GET_VCPU_EVENTS, &ev) < 0)
		goto fail;
	ev.exception.injected = 1;
	ev.exception.nr = 1; /* #DB */
	ev.exception.has_error_code = 0;
	ev.flags = 0;
	if (ioctl(vcpu->fd, KVM_SET_VCPU_EVENTS, &ev) < 0)
		goto fail;
	return VCPU_RESUME;
fail:
	log_error_errno(errno, "vCPU %u: cannot hand #DB to the guest", vcpu->id);
	vm_end(vcpu->vm, VM_END_HOST_ERROR, 0, 0);
	return VCPU_STOP;
}

int hw_watch_debug_exit(struct vcpu *vcpu)
{
	struct hw_engine *hw = vcpu->vm->hw;
	struct hw_vcpu *hv = hw_vcpu(hw, vcpu);
	const uint32_t *tickets = hv->tickets;
	unsigned i, mute = 0, seen = 0;
	struct dr_exit e;

	/* Judged by what this vCPU had loaded: the engine may have moved on since. */
	dr_exit_decode(vcpu->run->debug.arch.dr6, hv->slots, &e);
	/*
	 * Our step past a code breakpoint (code_bp.c), where RF is not
	 * honoured, or the late #DB of one a load gave up.
	 */
	if (e.single_step) {
		int rc = hv->stepping ? hw_code_step_done(vcpu) : hw_code_late_step(vcpu);

		if (rc == VCPU_STOP)
			return VCPU_STOP;
		/* The stepped instruction may have trapped on a watch, or the guest's own. */
		if (rc == VCPU_RESUME) {
			e.single_step = false;
			if (!e.data_hits && !e.exec_hits && !e.dr_access && !e.task_switch &&
			    !(e.hit & hv->guest_loaded))
				return VCPU_RESUME;
		}
	}
	/*
	 * A code breakpoint (--watch=sample) is a fault before its
	 * instruction runs, so it never comes with a data trap, which comes
	 * after one; the guest's own causes still go to the guest.
	 */
	if (e.exec_hits && !e.data_hits) {
		int rc = hw_code_exit(vcpu, e.exec_hits);

		if (rc == VCPU_STOP)
			return rc;
		if (rc == VCPU_RESUME && !e.single_step && !e.dr_access && !e.task_switch &&
		    !(e.hit & hv->guest_loaded))
			return rc;
		if (rc == VCPU_RESUME)
			return foreign_debug_exit(vcpu, &e);
	}
	if (!dr_exit_is_ours(&e))
		return foreign_debug_exit(vcpu, &e);

	for (i = 0; i < DR_NUM_SLOTS; i++) {
		struct hw_armed copy, *w;
		struct hw_watch_hit hit;
		unsigned watch_slots;

		if (!(e.data_hits & (1u << i)) || !tickets[i])
			continue;
		/*
		 * Two slots of one watch (not always neighbours) may both fire
		 * on one access: count it once.
		 */
		if (seen & (1u << i))
			continue;
		watch_slots = hw_slots_of(hw, vcpu, tickets[i]);
		seen |= watch_slots;
		pthread_mutex_lock(&hw->lock);
		w = hw_find_armed(hw, tickets[i]);
		if (w)
			copy = *w;
		else
			hw->late_hits++;
		pthread_mutex_unlock(&hw->lock);
		/*
		 * Disarmed meanwhile: the watcher has its answer already, and
		 * this vCPU had not yet loaded the disarm.  Counted only.
		 */
		if (!w) {
			mute |= watch_slots;
			continue;
		}
		/*
		 * Only the first hit is described (decoded, unwound): that is
		 * what the report shows.  Later ones are counted, cheaply, or a
		 * handler that writes the range on every timer tick of a slow
		 * host keeps its vCPU in trap handling and the watch never ends.
		 */
		if (copy.have_hit)
			memset(&hit, 0, sizeof(hit));
		else
			describe_hit(vcpu, &copy, hv->slots[i].addr, &hit);
		pthread_mutex_lock(&hw->lock);
		w = hw_find_armed(hw, tickets[i]);
		if (w && hit.excused) {
			hw->excused++;
		} else if (w && hit.runtime) {
			hw->runtime_hits++;
		} else if (w) {
			if (w->hits < UINT32_MAX)
				w->hits++;
			if (!w->have_hit) {
				w->have_hit = true;
				w->hit = hit;
			}
			hw->hits++;
		}
		pthread_mutex_unlock(&hw->lock);
		/* An excused access says nothing of this vCPU's next one. */
		if (!hit.excused && !hit.runtime)
			mute |= watch_slots;
	}
	if (mute && hw_mute_after_hit(vcpu, mute) == VCPU_STOP)
		return VCPU_STOP;
	/*
	 * One exit can carry the guest's own cause too (a single step of its
	 * own, or its own breakpoint, on an access we watch): that part is
	 * still the guest's.
	 */
	if (e.single_step || e.dr_access || e.task_switch || (e.hit & hv->guest_loaded))
		return foreign_debug_exit(vcpu, &e);
	return VCPU_RESUME;
}
