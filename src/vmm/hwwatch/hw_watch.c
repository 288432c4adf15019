/* hw_watch.c: hardware-watchpoint mode: guest watches backed by debug registers. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include <linux/kvm.h>

#include "vmm/base/clock.h"
#include "vmm/base/log.h"
#include "vmm/kvm/guest_mem.h"
#include "vmm/hwwatch/hw_watch.h"
#include "vmm/dev/hypercall.h"
#include "vmm/kvm/vcpu.h"
#include "vmm/kvm/vm.h"
#include "watch/debugreg.h"
#include "watch/insn.h"
#include "watch/sym.h"
#include "watch/unwind.h"

/*
 * The guest runtime asks for a hardware watch around each soft watch
 * (abi.h, CSAN_HC_HW_ARM).  Here a watch takes one or two of the four
 * debug-address registers, and every vCPU gets the same DR0-DR3/DR7
 * through KVM_SET_GUEST_DEBUG before the ARM call returns, so the watch
 * is in force everywhere before the guest's delay starts.  A data
 * breakpoint traps after the access: the trapping vCPU records what it
 * can (registers, host-unwound stack, value) for the watch and goes on.
 * The watcher learns of it at DISARM and reports; its report's hw_ticket
 * brings it back here for the stack.
 *
 * The guest may use debug registers itself (a kernel debugger, perf
 * breakpoints).  While csan-vmm's are loaded KVM runs the guest with
 * ours instead of its own, so each vCPU, whenever it loads ours, reads
 * the guest's DR7 and keeps the guest's enabled slots in what it loads;
 * the allocator hands out no slot any vCPU's guest has enabled, and a
 * trap on a guest slot goes back to the guest as its #DB.  A guest that
 * enables a slot while ours are loaded has it in force from its vCPU's
 * next load (the next arm or disarm anywhere); if one of ours holds that
 * slot then, ours wins for that watch, and the clash is counted.
 */

/* One guest watch backed by debug registers. */
struct hw_armed {
	uint32_t ticket; /* 0: the entry is free */
	unsigned cpu;	 /* the watcher's vCPU */
	uint64_t addr;
	uint32_t size, access;
	uint64_t value; /* up to 8 bytes at addr when armed, to tell writes */
	uint32_t hits;
	bool have_hit;
	bool disarming; /* slots already free, results not yet final */
	struct hw_watch_hit hit;
};

/*
 * Watches in force or being disarmed: a disarming one keeps its entry
 * until every vCPU has loaded the disarm, while a new one may already
 * have its slots.
 */
#define HW_MAX_WATCHES (2 * DR_NUM_SLOTS)

struct hw_engine {
	pthread_mutex_t lock;
	struct dr_alloc alloc;
	struct dr_slot slots[DR_NUM_SLOTS];
	uint64_t dr7;
	uint64_t gen; /* bumped on every change of slots/dr7 */
	struct hw_armed armed[HW_MAX_WATCHES];
	/* Each watcher's last disarmed watch, until its report comes. */
	struct hw_armed last[CSAN_MAX_CPUS];
	uint32_t next_ticket;
	/* Slots each vCPU's guest had enabled in its own DR7 at its last load. */
	unsigned guest_slots[CSAN_MAX_CPUS];
	/* Statistics, under lock. */
	uint64_t arms, no_slot, disarms, hits, late_hits, excused, foreign_exits;
	uint64_t partial, uncovered_bytes; /* watches armed for a prefix; the bytes left out */
	uint64_t guest_clashes;		   /* loads where a guest slot was one of ours */
	uint64_t guest_repairs;		   /* guest slots KVM had overwritten with ours */
	uint64_t arm_ns, disarm_ns;
	uint64_t loads;	       /* KVM_SET_GUEST_DEBUG calls (atomic): one per vCPU and change */
	uint64_t runtime_hits; /* the sanitizer's own accesses (its value reads) */
	uint64_t mutes;	       /* a vCPU's hits on a watch, after its first, turned off */
	/* Hits whose instruction was not found, and why the last one was not. */
	uint64_t undecoded;
	char undecoded_why[256];
	const struct hw_guest_view *view; /* NULL: the bundled guest's control block */
};

struct hw_engine *hw_engine_new(void)
{
	struct hw_engine *hw = calloc(1, sizeof(*hw));

	if (!hw)
		return NULL;
	pthread_mutex_init(&hw->lock, NULL);
	dr_alloc_init(&hw->alloc);
	return hw;
}

void hw_watch_set_view(struct hw_engine *hw, const struct hw_guest_view *view)
{
	hw->view = view;
}

void hw_engine_free(struct hw_engine *hw)
{
	if (!hw)
		return;
	pthread_mutex_destroy(&hw->lock);
	free(hw);
}

/* Note the slots @vcpu's guest enables itself and reserve every vCPU's; under lock. */
static void note_guest_slots(struct hw_engine *hw, const struct vcpu *vcpu, unsigned guest)
{
	unsigned i, all = 0;

	hw->guest_slots[vcpu->id] = guest;
	for (i = 0; i < vcpu->vm->ncpus && i < CSAN_MAX_CPUS; i++)
		all |= hw->guest_slots[i];
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
static int repair_guest_debugregs(struct vcpu *vcpu, struct kvm_debugregs *guest)
{
	const unsigned enabled = dr7_enabled_slots(guest->dr7);
	unsigned i;
	int n = 0;

	for (i = 0; i < DR_NUM_SLOTS; i++) {
		if (!vcpu->hw_slots[i].armed || !(enabled & (1u << i)) ||
		    guest->db[i] != vcpu->hw_slots[i].addr)
			continue;
		guest->db[i] = vcpu->hw_guest_db[i];
		guest->dr7 = dr7_copy_slot(guest->dr7, vcpu->hw_guest_dr7, i);
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
	struct kvm_guest_debug dbg;
	struct kvm_debugregs guest;
	unsigned i, ours = 0, mine = 0;
	int repaired;
	uint64_t gen;

	struct dr_slot slots[DR_NUM_SLOTS];
	uint32_t tickets[DR_NUM_SLOTS];

	/* The guest's own DR0-DR3/DR7, which KVM keeps while ours are loaded. */
	if (ioctl(vcpu->fd, KVM_GET_DEBUGREGS, &guest) < 0)
		return -errno;
	repaired = repair_guest_debugregs(vcpu, &guest);
	if (repaired < 0)
		return repaired;
	memcpy(vcpu->hw_guest_db, guest.db, sizeof(vcpu->hw_guest_db));
	vcpu->hw_guest_dr7 = guest.dr7;
	memset(&dbg, 0, sizeof(dbg));
	pthread_mutex_lock(&hw->lock);
	hw->guest_repairs += (uint64_t)repaired;
	note_guest_slots(hw, vcpu, dr7_enabled_slots(guest.dr7));
	gen = hw->gen;
	if (vcpu->hw_gen == gen) {
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
	/* No slot armed: guest debugging off, so the guest's own registers work again. */
	if (hw->dr7) {
		mine = hw->guest_slots[vcpu->id] & ~ours;
		if (hw->guest_slots[vcpu->id] & ours)
			hw->guest_clashes++;
		dbg.control = KVM_GUESTDBG_ENABLE | KVM_GUESTDBG_USE_HW_BP;
		for (i = 0; i < DR_NUM_SLOTS; i++)
			dbg.arch.debugreg[i] = slots[i].armed	    ? slots[i].addr
					       : (mine & (1u << i)) ? guest.db[i]
								    : 0;
		dbg.arch.debugreg[7] = dr7_merge_guest(hw->dr7, guest.dr7, mine);
	}
	pthread_mutex_unlock(&hw->lock);
	/* A watch this vCPU has hit already stays muted here while it lives. */
	for (i = 0; i < DR_NUM_SLOTS; i++) {
		if (!tickets[i] || vcpu->hw_muted[i] != tickets[i] || !(ours & (1u << i)))
			vcpu->hw_muted[i] = 0;
		else
			dbg.arch.debugreg[7] = dr7_copy_slot(dbg.arch.debugreg[7], 0, i);
	}
	if (ioctl(vcpu->fd, KVM_SET_GUEST_DEBUG, &dbg) < 0)
		return -errno;
	__atomic_fetch_add(&hw->loads, 1, __ATOMIC_RELAXED);
	vcpu->hw_dbg = dbg;
	vcpu->hw_gen = gen;
	memcpy(vcpu->hw_slots, slots, sizeof(slots));
	memcpy(vcpu->hw_tickets, tickets, sizeof(tickets));
	vcpu->hw_guest_slots = mine;
	return 0;
}

/* Recompute DR7 from the slots; under lock.  The slots were checked when taken. */
static void update_dr7(struct hw_engine *hw)
{
	char why[128];

	if (dr7_encode(hw->slots, &hw->dr7, why, sizeof(why)) < 0)
		hw->dr7 = 0; /* cannot happen: dr_split_range gives aligned pieces */
	hw->gen++;
}

static struct hw_armed *find_armed(struct hw_engine *hw, uint32_t ticket)
{
	unsigned i;

	for (i = 0; i < HW_MAX_WATCHES; i++)
		if (ticket && hw->armed[i].ticket == ticket)
			return &hw->armed[i];
	return NULL;
}

/* Up to 8 bytes at @addr as the watching vCPU sees them; 0 if unreadable. */
static uint64_t read_value(struct vcpu *vcpu, uint64_t addr, uint32_t size)
{
	uint64_t v = 0;

	guest_read_linear(vcpu, addr, &v, size < sizeof(v) ? size : sizeof(v));
	return v;
}

/* Write the OUT fields of a hypercall's struct back into guest RAM. */
static void write_back(struct vcpu *vcpu, uint32_t gpa, const void *src, size_t size)
{
	void *hva = vm_gpa_to_hva(vcpu->vm, gpa, size);

	/* hc_read_args checked the range already. */
	if (hva)
		memcpy(hva, src, size);
}

/* Make every vCPU load the engine's registers; a failure ends the run. */
static int apply_everywhere(struct vcpu *vcpu)
{
	int err = vcpu_run_on_all(vcpu->vm, apply_debugregs, vcpu->vm->hw);

	if (err) {
		log_error_errno(-err, "KVM_SET_GUEST_DEBUG failed");
		vm_end(vcpu->vm, VM_END_HOST_ERROR, 0, 0);
		return VCPU_STOP;
	}
	return VCPU_RESUME;
}

/*
 * Take slots for [addr, addr + *size) as @ticket; under lock.  As many as
 * are free, so a wide or unaligned watch is covered from its start as far
 * as they reach; *size becomes the bytes covered, and the rest is counted
 * as not hardware-watched (the soft watchpoint still sees it).  Returns a
 * csan_hw_status.
 */
static uint32_t take_slots(struct hw_engine *hw, uint32_t ticket, uint64_t addr, uint32_t *size,
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

int hw_watch_arm(struct vcpu *vcpu, uint64_t addr, uint32_t *size, uint32_t access,
		 uint32_t *ticket, uint32_t *status)
{
	struct vm *vm = vcpu->vm;
	struct hw_engine *hw = vm->hw;
	struct hw_armed *slot = NULL;
	uint64_t t0 = clock_now_ns(), value;
	unsigned i;
	int rc;

	*ticket = 0;
	if (!__atomic_load_n(&vm->watch_hw, __ATOMIC_RELAXED)) {
		*status = CSAN_HW_OFF;
		return VCPU_RESUME;
	}
	value = read_value(vcpu, addr, *size);

	pthread_mutex_lock(&hw->lock);
	for (i = 0; i < HW_MAX_WATCHES && !slot; i++)
		if (!hw->armed[i].ticket)
			slot = &hw->armed[i];
	if (!slot) {
		hw->no_slot++;
		*status = CSAN_HW_NO_SLOT;
	} else {
		if (++hw->next_ticket == 0)
			hw->next_ticket = 1;
		*status = take_slots(hw, hw->next_ticket, addr, size, access);
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
		rc = apply_everywhere(vcpu);
		if (rc != VCPU_RESUME)
			return rc;
		pthread_mutex_lock(&hw->lock);
		hw->arm_ns += clock_now_ns() - t0;
		pthread_mutex_unlock(&hw->lock);
	}
	return VCPU_RESUME;
}

static int hc_hw_arm(struct vcpu *vcpu, uint32_t gpa)
{
	struct csan_hc_hw_arm a;
	int rc;

	rc = hc_read_args(vcpu, CSAN_HC_HW_ARM, gpa, &a, sizeof(a));
	if (rc != VCPU_RESUME)
		return rc;
	if (a.size < 1 || a.size > CSAN_HW_MAX_SIZE)
		return hc_fail(vcpu, CSAN_HC_HW_ARM, "size", "%" PRIu32 " not in 1..%u", a.size,
			       CSAN_HW_MAX_SIZE);
	if (a.access & ~CSAN_ACCESS_KNOWN)
		return hc_fail(vcpu, CSAN_HC_HW_ARM, "access", "unknown bits %#" PRIx32,
			       a.access & ~CSAN_ACCESS_KNOWN);
	rc = hw_watch_arm(vcpu, a.addr, &a.size, a.access, &a.ticket, &a.status);
	if (rc != VCPU_RESUME)
		return rc;
	write_back(vcpu, gpa, &a, sizeof(a));
	return VCPU_RESUME;
}

int hw_watch_disarm(struct vcpu *vcpu, uint32_t ticket, struct hw_watch_result *res)
{
	struct vm *vm = vcpu->vm;
	struct hw_engine *hw = vm->hw;
	struct hw_armed *w, done;
	uint64_t t0 = clock_now_ns();
	unsigned i;
	int rc;

	pthread_mutex_lock(&hw->lock);
	w = find_armed(hw, ticket);
	if (!w || w->cpu != vcpu->id || w->disarming) {
		pthread_mutex_unlock(&hw->lock);
		return -ENOENT;
	}
	w->disarming = true;
	dr_alloc_put(&hw->alloc, ticket);
	for (i = 0; i < DR_NUM_SLOTS; i++) {
		uint64_t owner;

		if (hw->slots[i].armed && dr_alloc_owner(&hw->alloc, i, &owner) == -ENOENT)
			hw->slots[i].armed = false;
	}
	update_dr7(hw);
	pthread_mutex_unlock(&hw->lock);

	/*
	 * Each vCPU loads the disarm between two KVM_RUNs, so by the time
	 * all have, every access that trapped under this watch has been
	 * recorded: only then are its results final.
	 */
	rc = apply_everywhere(vcpu);
	if (rc != VCPU_RESUME)
		return rc;
	pthread_mutex_lock(&hw->lock);
	w = find_armed(hw, ticket);
	done = *w;
	w->ticket = 0;
	hw->last[vcpu->id] = done;
	hw->disarms++;
	hw->disarm_ns += clock_now_ns() - t0;
	pthread_mutex_unlock(&hw->lock);

	memset(res, 0, sizeof(*res));
	res->hits = done.hits;
	res->have_hit = done.have_hit;
	res->hit = done.hit;
	return VCPU_RESUME;
}

static int hc_hw_disarm(struct vcpu *vcpu, uint32_t gpa)
{
	struct csan_hc_hw_disarm d;
	struct hw_watch_result res;
	uint32_t ticket;
	int rc;

	rc = hc_read_args(vcpu, CSAN_HC_HW_DISARM, gpa, &d, sizeof(d));
	if (rc != VCPU_RESUME)
		return rc;
	ticket = d.ticket;
	rc = hw_watch_disarm(vcpu, ticket, &res);
	if (rc == -ENOENT)
		return hc_fail(vcpu, CSAN_HC_HW_DISARM, "ticket",
			       "%" PRIu32 " is not a watch this vCPU armed", d.ticket);
	if (rc != VCPU_RESUME)
		return rc;
	memset(&d, 0, sizeof(d));
	d.ticket = ticket;
	d.hits = res.hits;
	if (res.have_hit) {
		d.cpu = res.hit.cpu;
		d.context = res.hit.context;
		d.access = res.hit.access;
		d.size = res.hit.size;
		d.ip = res.hit.ip;
	}
	write_back(vcpu, gpa, &d, sizeof(d));
	return VCPU_RESUME;
}

int hw_watch_register(struct vm *vm, char *why, size_t whylen)
{
	int r = hc_register(vm, CSAN_HC_HW_ARM, "csan", hc_hw_arm, why, whylen);

	return r ? r : hc_register(vm, CSAN_HC_HW_DISARM, "csan", hc_hw_disarm, why, whylen);
}

/*
 * The u32 that the guest runtime keeps for @cpu in a per-CPU array it
 * published in the control block (at @base + @stride * cpu + @offset,
 * fields read from it by the caller).  Guest memory, so every address is
 * checked: false when it is not there or cannot be read.
 */
static bool read_guest_percpu_u32(struct vm *vm, uint64_t base, uint64_t stride, uint64_t offset,
				  unsigned cpu, uint32_t *out)
{
	const uint32_t *p;

	if (!base || stride > 65536 || offset > 65536 || ((base | stride | offset) & 3))
		return false;
	p = vm_gpa_to_hva(vm, base + stride * cpu + offset, sizeof(*p));
	if (!p)
		return false;
	*out = __atomic_load_n(p, __ATOMIC_RELAXED);
	return true;
}

/* The guest's control block, or NULL before it attached (or if it is too small). */
static const struct csan_control *guest_control(struct vm *vm)
{
	const struct csan_control *c = __atomic_load_n(&vm->control, __ATOMIC_ACQUIRE);

	if (!c || __atomic_load_n(&vm->control_size, __ATOMIC_ACQUIRE) < sizeof(*c))
		return NULL;
	return c;
}

/*
 * Interrupt or task: the guest runtime told where each CPU's interrupt
 * nesting count lives (csan_control.irq_depth_*); task context when it
 * cannot be read.
 */
static uint32_t guest_context(struct vm *vm, unsigned cpu)
{
	const struct csan_control *c = guest_control(vm);
	uint32_t depth = 0;

	if (!c || !read_guest_percpu_u32(vm, __atomic_load_n(&c->irq_depth_base, __ATOMIC_RELAXED),
					 __atomic_load_n(&c->irq_depth_stride, __ATOMIC_RELAXED), 0,
					 cpu, &depth))
		return CSAN_CTX_TASK;
	return depth ? CSAN_CTX_INTERRUPT : CSAN_CTX_TASK;
}

/*
 * Whether @cpu made its access with the runtime's checking disabled
 * (data_race(), kcsan_disable_current()) in @context: the debug register
 * saw the access but cannot see the marking.  The runtime published where
 * its per-CPU depth lives (csan_control.disable_*), a signed count;
 * unreadable counts as not disabled.
 */
static bool guest_checking_disabled(struct vm *vm, unsigned cpu, uint32_t context)
{
	const struct csan_control *c = guest_control(vm);
	uint32_t depth = 0;

	if (!c || !read_guest_percpu_u32(
			  vm, __atomic_load_n(&c->disable_base, __ATOMIC_RELAXED),
			  __atomic_load_n(&c->disable_stride, __ATOMIC_RELAXED),
			  context == CSAN_CTX_INTERRUPT
				  ? __atomic_load_n(&c->disable_irq_offset, __ATOMIC_RELAXED)
				  : 0,
			  cpu, &depth))
		return false;
	return (int32_t)depth > 0;
}

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

	const struct hw_guest_view *view = vm->hw->view;

	memset(hit, 0, sizeof(*hit));
	hit->cpu = vcpu->id;
	hit->addr = slot_addr > w->addr ? slot_addr : w->addr;
	if (view) {
		hit->context = view->context(vcpu);
		hit->task_id = hit->context == CSAN_CTX_TASK ? view->task_id(vcpu) : 0;
		hit->excused = view->checking_disabled(vcpu, hit->context);
		hit->runtime = view->runtime_pc(vm, vcpu->run->debug.arch.pc);
	} else {
		hit->context = guest_context(vm, vcpu->id);
		hit->excused = guest_checking_disabled(vm, vcpu->id, hit->context);
	}
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
			hit->access = read_value(vcpu, w->addr, w->size) != w->value
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
		if (vcpu->hw_slots[i].armed)
			ours |= DR6_B(i);
	if (ioctl(vcpu->fd, KVM_GET_DEBUGREGS, &dr) < 0)
		goto fail;
	dr.dr6 = vcpu->run->debug.arch.dr6 & ~ours;
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

/*
 * Stop @vcpu trapping on the slots of @mask, whose watch it has hit: its
 * own thread loads its registers again without them, no other vCPU is
 * kicked.  A loop that races with a watched variable otherwise traps on
 * every access while the watch lives, and each trap exit costs more than
 * the few microseconds of a racing access: the vCPU then makes far fewer
 * of them, and a Linux guest's KCSAN, which watches with a delay of its
 * own, sees fewer races (linux-kunit-hw.sh).  The first hit is the one
 * the report shows; later ones from this vCPU would only be counted.
 */
static int mute_after_hit(struct vcpu *vcpu, unsigned mask)
{
	struct hw_engine *hw = vcpu->vm->hw;
	struct kvm_guest_debug dbg = vcpu->hw_dbg;
	unsigned i, n = 0;

	for (i = 0; i < DR_NUM_SLOTS; i++) {
		if (!(mask & (1u << i)) || vcpu->hw_muted[i] == vcpu->hw_tickets[i])
			continue;
		dbg.arch.debugreg[7] = dr7_copy_slot(dbg.arch.debugreg[7], 0, i);
		vcpu->hw_muted[i] = vcpu->hw_tickets[i];
		n++;
	}
	if (!n)
		return VCPU_RESUME;
	if (ioctl(vcpu->fd, KVM_SET_GUEST_DEBUG, &dbg) < 0) {
		log_error_errno(errno, "vCPU %u: KVM_SET_GUEST_DEBUG failed", vcpu->id);
		vm_end(vcpu->vm, VM_END_HOST_ERROR, 0, 0);
		return VCPU_STOP;
	}
	vcpu->hw_dbg = dbg;
	pthread_mutex_lock(&hw->lock);
	hw->mutes++;
	pthread_mutex_unlock(&hw->lock);
	return VCPU_RESUME;
}

/* The slots this vCPU has loaded for the watch @ticket. */
static unsigned slots_of(const struct vcpu *vcpu, uint32_t ticket)
{
	unsigned i, mask = 0;

	for (i = 0; i < DR_NUM_SLOTS; i++)
		if (vcpu->hw_tickets[i] == ticket && vcpu->hw_slots[i].armed)
			mask |= 1u << i;
	return mask;
}

int hw_watch_debug_exit(struct vcpu *vcpu)
{
	struct hw_engine *hw = vcpu->vm->hw;
	const uint32_t *tickets = vcpu->hw_tickets;
	unsigned i, mute = 0, seen = 0;
	struct dr_exit e;

	/* Judged by what this vCPU had loaded: the engine may have moved on since. */
	dr_exit_decode(vcpu->run->debug.arch.dr6, vcpu->hw_slots, &e);
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
		watch_slots = slots_of(vcpu, tickets[i]);
		seen |= watch_slots;
		pthread_mutex_lock(&hw->lock);
		w = find_armed(hw, tickets[i]);
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
			describe_hit(vcpu, &copy, vcpu->hw_slots[i].addr, &hit);
		pthread_mutex_lock(&hw->lock);
		w = find_armed(hw, tickets[i]);
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
	if (mute && mute_after_hit(vcpu, mute) == VCPU_STOP)
		return VCPU_STOP;
	/*
	 * One exit can carry the guest's own cause too (a single step of its
	 * own, or its own breakpoint, on an access we watch): that part is
	 * still the guest's.
	 */
	if (e.single_step || e.dr_access || e.task_switch || (e.hit & vcpu->hw_guest_slots))
		return foreign_debug_exit(vcpu, &e);
	return VCPU_RESUME;
}

void hw_watch_complete_report(struct vm *vm, unsigned cpu, struct csan_hc_report *r)
{
	struct hw_engine *hw = vm->hw;
	struct hw_armed done;
	unsigned i;

	if (!hw || cpu >= CSAN_MAX_CPUS || !r->hw_ticket)
		return;
	pthread_mutex_lock(&hw->lock);
	done = hw->last[cpu];
	if (done.ticket == r->hw_ticket)
		hw->last[cpu].ticket = 0; /* one report per watch */
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
