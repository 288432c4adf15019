/* dr_share.c: which debug registers hold which watch, on every vCPU, beside the guest's own. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/ioctl.h>

#include <linux/kvm.h>

#include "vmm/base/log.h"
#include "vmm/hwwatch/engine.h"
#include "vmm/kvm/vcpu.h"
#include "vmm/kvm/vm.h"
#include "watch/debugreg.h"

/*
 * A watch takes one or two of the four debug-address registers, and every
 * vCPU gets the same DR0-DR3/DR7 through KVM_SET_GUEST_DEBUG, each on its
 * own thread (vcpu_run_on_all), before the arm or disarm that changed them
 * returns.
 *
 * The guest may use debug registers itself (a kernel debugger, perf
 * breakpoints).  While csan-vmm's are loaded KVM runs the guest with
 * ours instead of its own, so each vCPU, whenever it loads ours, reads
 * the guest's DR7 and keeps the guest's enabled slots in what it loads;
 * the allocator hands out no slot any vCPU's guest has enabled, and a
 * trap on a guest slot goes back to the guest as its #DB (debug_exit.c).
 * A guest that enables a slot while ours are loaded has it in force from
 * its vCPU's next load (the next arm or disarm anywhere); if one of ours
 * holds that slot then, ours wins for that watch, and the clash is
 * counted.
 */

/* Note the slots @vcpu's guest enables itself and reserve every vCPU's; under lock. */
static void note_guest_slots(struct hw_engine *hw, const struct vcpu *vcpu, unsigned enabled)
{
	unsigned i, all = 0;

	hw_vcpu(hw, vcpu)->guest_enabled = enabled;
	for (i = 0; i < hw->ncpus; i++)
		all |= hw->vcpus[i].guest_enabled;
	dr_alloc_reserve(&hw->alloc, all);
}

/*
 * KVM keeps the guest's own debug registers while ours are loaded, but
 * not always: when a guest's MOV DRn exit and our kick for a load come
 * together, KVM (Linux 6.1 kvm-amd, seen in the emulated host) returns
 * to us with its "guest owns the registers" state set, we load ours, and
 * at the next exit KVM saves the hardware registers, ours, as the
 * guest's.  Each slot of ours that came back that way (enabled in the
 * guest's DR7 with our address) gets the guest's value from before back,
 * and KVM is told.  Returns how many slots were repaired, or -errno.
 */
static int repair_guest_debugregs(struct vcpu *vcpu, struct hw_vcpu *hv,
				  struct kvm_debugregs *guest)
{
	const unsigned enabled = dr7_enabled_slots(guest->dr7);
	unsigned i;
	int n = 0;

	for (i = 0; i < DR_NUM_SLOTS; i++) {
		if (!hv->slots[i].armed || !(enabled & (1u << i)) ||
		    guest->db[i] != hv->slots[i].addr)
			continue;
		guest->db[i] = hv->guest_db[i];
		guest->dr7 = dr7_copy_slot(guest->dr7, hv->guest_dr7, i);
		n++;
	}
	if (n && ioctl(vcpu->fd, KVM_SET_DEBUGREGS, guest) < 0)
		return -errno;
	return n;
}

/*
 * Load the engine's current debug registers into @vcpu (run on its own
 * thread by vcpu_run_on_all), with the guest's own breakpoints in the
 * slots the engine leaves free.  It reads the state when it runs, not
 * when it was posted: two watchers arming at once then cannot leave a
 * vCPU with the older of their two states.
 */
static int apply_debugregs(struct vcpu *vcpu, void *arg)
{
	struct hw_engine *hw = arg;
	struct hw_vcpu *hv = hw_vcpu(hw, vcpu);
	struct kvm_guest_debug dbg;
	struct kvm_debugregs guest;
	unsigned i, ours = 0, guest_loaded = 0;
	int repaired;
	uint64_t gen;

	struct dr_slot slots[DR_NUM_SLOTS];
	uint32_t tickets[DR_NUM_SLOTS];

	/* The guest's own DR0-DR3/DR7, which KVM keeps while ours are loaded. */
	if (ioctl(vcpu->fd, KVM_GET_DEBUGREGS, &guest) < 0)
		return -errno;
	repaired = repair_guest_debugregs(vcpu, hv, &guest);
	if (repaired < 0)
		return repaired;
	memcpy(hv->guest_db, guest.db, sizeof(hv->guest_db));
	hv->guest_dr7 = guest.dr7;
	memset(&dbg, 0, sizeof(dbg));
	pthread_mutex_lock(&hw->lock);
	hw->guest_repairs += (uint64_t)repaired;
	note_guest_slots(hw, vcpu, dr7_enabled_slots(guest.dr7));
	gen = hw->gen;
	if (hv->gen == gen) {
		pthread_mutex_unlock(&hw->lock);
		return 0;
	}
	memcpy(slots, hw->slots, sizeof(slots));
	for (i = 0; i < DR_NUM_SLOTS; i++) {
		uint64_t owner = 0;

		tickets[i] = dr_alloc_owner(&hw->alloc, i, &owner) == 0 ? (uint32_t)owner : 0;
		if (slots[i].armed)
			ours |= 1u << i;
	}
	/*
	 * No slot armed: guest debugging off, so the guest's own registers
	 * work again; they are merged into ours while it is on.  Not while
	 * code breakpoints are served (sampling, paused or between draws):
	 * the late #DB of a step this load gives up (code_bp.c,
	 * hw_code_late_step) must still come to us, and with debugging off
	 * KVM would hand it to the guest itself.  The cost: while sampling
	 * is paused, a slot the guest arms itself waits for the next load to
	 * take effect.
	 */
	if (hw->dr7 || hw->code_hit) {
		guest_loaded = hv->guest_enabled & ~ours;
		if (hv->guest_enabled & ours)
			hw->guest_clashes++;
		dbg.control = KVM_GUESTDBG_ENABLE | KVM_GUESTDBG_USE_HW_BP;
		for (i = 0; i < DR_NUM_SLOTS; i++)
			dbg.arch.debugreg[i] = slots[i].armed		    ? slots[i].addr
					       : (guest_loaded & (1u << i)) ? guest.db[i]
									    : 0;
		dbg.arch.debugreg[7] = dr7_merge_guest(hw->dr7, guest.dr7, guest_loaded);
	}
	pthread_mutex_unlock(&hw->lock);
	/* A watch this vCPU has hit already stays muted here while it lives. */
	for (i = 0; i < DR_NUM_SLOTS; i++) {
		if (!tickets[i] || hv->muted[i] != tickets[i] || !(ours & (1u << i)))
			hv->muted[i] = 0;
		else
			dbg.arch.debugreg[7] = dr7_copy_slot(dbg.arch.debugreg[7], 0, i);
	}
	/*
	 * A step past a code breakpoint (code_bp.c) is given up: the load
	 * ends it.  The breakpoint may stop the vCPU again there, and that
	 * stop steps anew.
	 */
	hw_code_step_give_up(vcpu);
	if (ioctl(vcpu->fd, KVM_SET_GUEST_DEBUG, &dbg) < 0)
		return -errno;
	__atomic_fetch_add(&hw->loads, 1, __ATOMIC_RELAXED);
	hv->dbg = dbg;
	hv->gen = gen;
	memcpy(hv->slots, slots, sizeof(slots));
	memcpy(hv->tickets, tickets, sizeof(tickets));
	hv->guest_loaded = guest_loaded;
	return 0;
}

/*
 * A load ends a step past a code breakpoint: counted when the vCPU is no
 * longer at the stepped instruction (in a handler, whose frame may hold
 * the trap flag; code_bp.c, hw_code_late_step).  Here, with the loads,
 * so that code_bp.c, which loads through this file, is not called back.
 */
void hw_code_step_give_up(struct vcpu *vcpu)
{
	struct hw_engine *hw = vcpu->vm->hw;
	struct hw_vcpu *hv = hw_vcpu(hw, vcpu);
	struct kvm_regs r;

	if (!hv->stepping)
		return;
	hv->stepping = false;
	/* Unreadable: counted, as the safer guess. */
	if (ioctl(vcpu->fd, KVM_GET_REGS, &r) == 0 && r.rip == hv->code_stop.rip)
		return;
	/* Atomic: hw_code_late_step looks at it without the lock first. */
	pthread_mutex_lock(&hw->lock);
	__atomic_fetch_add(&hw->steps_given_up, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&hw->lock);
}

/* Recompute DR7 from the slots; under lock.  The slots were checked when taken. */
static void update_dr7(struct hw_engine *hw)
{
	char why[128];

	if (dr7_encode(hw->slots, &hw->dr7, why, sizeof(why)) < 0)
		hw->dr7 = 0; /* cannot happen: dr_split_range gives aligned pieces */
	hw->gen++;
}

int hw_apply_all(struct vm *vm)
{
	int err = vcpu_run_on_all(vm, apply_debugregs, vm->hw);

	if (err) {
		log_error_errno(-err, "KVM_SET_GUEST_DEBUG failed");
		vm_end(vm, VM_END_HOST_ERROR, 0, 0);
		return -EIO;
	}
	return 0;
}

int hw_apply_everywhere(struct vcpu *vcpu)
{
	return hw_apply_all(vcpu->vm) ? VCPU_STOP : VCPU_RESUME;
}

/*
 * As many slots as are free, so a wide or unaligned watch is covered from
 * its start as far as they reach; the rest is counted as not
 * hardware-watched (the soft watchpoint still sees it).
 */
uint32_t hw_take_slots(struct hw_engine *hw, uint32_t ticket, uint64_t addr, uint32_t *size,
		       uint32_t access)
{
	struct dr_piece pieces[DR_NUM_SLOTS];
	unsigned idx[DR_NUM_SLOTS], nfree = dr_alloc_free_count(&hw->alloc);
	uint64_t covered;
	int i, n;

	if (nfree == 0) {
		hw->no_slot++;
		return CSAN_HW_NO_SLOT;
	}
	n = dr_split_range(addr, *size, nfree, pieces, &covered);
	if (n < 0 || dr_alloc_get(&hw->alloc, ticket, (unsigned)n, idx) < 0) {
		/* Cannot happen: the size was checked, and n <= nfree under the lock. */
		hw->no_slot++;
		return CSAN_HW_NO_SLOT;
	}
	for (i = 0; i < n; i++)
		hw->slots[idx[i]] = (struct dr_slot){
			.armed = true,
			/* A watcher that writes conflicts with every access, one that reads with
			   writes. */
			.kind = (access & CSAN_ACCESS_WRITE) ? DR_KIND_READ_WRITE : DR_KIND_WRITE,
			.addr = pieces[i].addr,
			.len = pieces[i].len,
		};
	if (covered < *size) {
		hw->partial++;
		hw->uncovered_bytes += *size - covered;
		*size = (uint32_t)covered;
	}
	update_dr7(hw);
	return CSAN_HW_ARMED;
}

void hw_put_slots(struct hw_engine *hw, uint32_t ticket)
{
	unsigned i;

	dr_alloc_put(&hw->alloc, ticket);
	for (i = 0; i < DR_NUM_SLOTS; i++) {
		uint64_t owner;

		if (hw->slots[i].armed && dr_alloc_owner(&hw->alloc, i, &owner) == -ENOENT)
			hw->slots[i].armed = false;
	}
	update_dr7(hw);
}

unsigned hw_slots_of(struct hw_engine *hw, const struct vcpu *vcpu, uint32_t ticket)
{
	const struct hw_vcpu *hv = hw_vcpu(hw, vcpu);
	unsigned i, mask = 0;

	for (i = 0; i < DR_NUM_SLOTS; i++)
		if (hv->tickets[i] == ticket && hv->slots[i].armed)
			mask |= 1u << i;
	return mask;
}

/*
 * Its own thread loads @vcpu's registers again without the slots of
 * @mask; no other vCPU is kicked.  A loop that races with a watched
 * variable otherwise traps on every access while the watch lives, and
 * each trap exit costs more than the few microseconds of a racing access:
 * the vCPU then makes far fewer of them, and a Linux guest's KCSAN, which
 * watches with a delay of its own, sees fewer races (linux-kunit-hw.sh).
 * The first hit is the one the report shows; later ones from this vCPU
 * would only be counted.
 */
int hw_mute_after_hit(struct vcpu *vcpu, unsigned mask)
{
	struct hw_engine *hw = vcpu->vm->hw;
	struct hw_vcpu *hv = hw_vcpu(hw, vcpu);
	struct kvm_guest_debug dbg = hv->dbg;
	unsigned i, n = 0;

	for (i = 0; i < DR_NUM_SLOTS; i++) {
		if (!(mask & (1u << i)) || hv->muted[i] == hv->tickets[i])
			continue;
		dbg.arch.debugreg[7] = dr7_copy_slot(dbg.arch.debugreg[7], 0, i);
		hv->muted[i] = hv->tickets[i];
		n++;
	}
	if (!n)
		return VCPU_RESUME;
	hw_code_step_give_up(vcpu); /* as in apply_debugregs: this load ends a step */
	if (ioctl(vcpu->fd, KVM_SET_GUEST_DEBUG, &dbg) < 0) {
		log_error_errno(errno, "vCPU %u: KVM_SET_GUEST_DEBUG failed", vcpu->id);
		vm_end(vcpu->vm, VM_END_HOST_ERROR, 0, 0);
		return VCPU_STOP;
	}
	hv->dbg = dbg;
	pthread_mutex_lock(&hw->lock);
	hw->mutes++;
	pthread_mutex_unlock(&hw->lock);
	return VCPU_RESUME;
}
