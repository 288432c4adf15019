/* engine.h: the hardware-watch engine's state, for the files of hwwatch/ only. */
#ifndef CSAN_VMM_HW_ENGINE_H
#define CSAN_VMM_HW_ENGINE_H

#include <assert.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <linux/kvm.h>

#include "csan/abi.h"
#include "vmm/hwwatch/hw_watch.h"
#include "vmm/kvm/vcpu.h"
#include "watch/debugreg.h"

/*
 * The debug-register allocator's owners of code breakpoints: the top of
 * the ticket space, which watch tickets skip (arm.c).
 */
#define HW_CODE_TICKET_BASE 0xfffffff0u
#define HW_CODE_TICKET(i)   (HW_CODE_TICKET_BASE + (i))

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

/*
 * The engine's view of one vCPU.  Its debug registers change only on its
 * own thread (dr_share.c), and a debug exit is judged by what it had
 * loaded, not by the engine's newer state: so what it loaded is kept
 * here, read and written by that thread alone.
 */
struct hw_vcpu {
	/* Under hw_engine.lock. */
	unsigned guest_enabled;	       /* slots its guest enabled in its own DR7 at its last load */
	struct hw_armed last_disarmed; /* its last disarmed watch, until its report comes */

	/* Its own thread only: what its debug registers hold. */
	uint64_t gen;			    /* the engine generation loaded */
	struct dr_slot slots[DR_NUM_SLOTS]; /* our slots as loaded */
	uint32_t tickets[DR_NUM_SLOTS];	    /* the watch owning each, 0 for none */
	unsigned guest_loaded;	      /* guest slots loaded beside ours: their traps are its */
	struct kvm_guest_debug dbg;   /* the registers as loaded */
	uint32_t muted[DR_NUM_SLOTS]; /* per slot, the watch it hit and no longer traps on */
	/* The guest's own DR0-DR3/DR7 as last read, to undo KVM's copying ours over them. */
	uint64_t guest_db[DR_NUM_SLOTS], guest_dr7;
	/* Code breakpoints (code_bp.c): the registers at its last stop, a step past one. */
	struct kvm_regs code_stop;
	bool code_stop_valid;
	bool stepping;
};

struct hw_engine {
	pthread_mutex_t lock;
	struct dr_alloc alloc;
	struct dr_slot slots[DR_NUM_SLOTS];
	uint64_t dr7;
	uint64_t gen; /* bumped on every change of slots/dr7 */
	struct hw_armed armed[HW_MAX_WATCHES];
	uint32_t next_ticket;
	unsigned ncpus;
	struct hw_vcpu *vcpus; /* [ncpus], by vcpu->id */
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
	const struct hw_guest_view *view; /* how the guest is read; NULL: as a task, unmarked */
	/* Code breakpoints (code_bp.c): the handler of their hits, and counts. */
	hw_code_hit_fn code_hit;
	void *code_ctx;
	unsigned ncode;	       /* code breakpoints in slots now */
	uint64_t code_loads;   /* hw_code_breakpoints_set calls that loaded */
	uint64_t code_hits;    /* exits at one of them */
	uint64_t code_short;   /* breakpoints asked for that found no free slot */
	uint64_t code_repeats; /* stops again with nothing changed (RF not honoured) */
	uint64_t code_late_steps; /* #DBs of steps given up, kept from the guest */
	/*
	 * Steps of ours given up away from their instruction: the trap flag
	 * KVM set for each may be in an exception's frame on the guest's
	 * stack, whose IRET, on whichever vCPU its task then runs, brings
	 * the #DB later (hw_code_late_step).
	 */
	uint64_t steps_given_up;
	bool code_step;		  /* step past code breakpoints: RF was not honoured */
	/* KVM_SET_GUEST_DEBUG's flags for such a step: with BLOCKIRQ where KVM has it. */
	uint32_t step_control;
};

/* hw_vcpu - the engine's state for @vcpu. */
static inline struct hw_vcpu *hw_vcpu(struct hw_engine *hw, const struct vcpu *vcpu)
{
	assert(vcpu->id < hw->ncpus);
	return &hw->vcpus[vcpu->id];
}

/* engine.c */

/* hw_find_armed - the watch named @ticket, in force or being disarmed; NULL if none.  Under lock.
 */
struct hw_armed *hw_find_armed(struct hw_engine *hw, uint32_t ticket);

/* hw_read_value - up to 8 bytes at @addr as @vcpu sees them; 0 if unreadable. */
uint64_t hw_read_value(struct vcpu *vcpu, uint64_t addr, uint32_t size);

/* dr_share.c */

/*
 * hw_take_slots - give the watch @ticket debug registers for [@addr,
 * @addr + *@size), conflicting with @access; under lock.  *@size becomes
 * the bytes covered.  Returns a csan_hw_status (CSAN_HW_ARMED or
 * CSAN_HW_NO_SLOT).
 */
uint32_t hw_take_slots(struct hw_engine *hw, uint32_t ticket, uint64_t addr, uint32_t *size,
		       uint32_t access);

/* hw_put_slots - free the debug registers of the watch @ticket; under lock. */
void hw_put_slots(struct hw_engine *hw, uint32_t ticket);

/*
 * hw_code_step_give_up - a load is about to replace @vcpu's registers: a
 * step past a code breakpoint running there ends unfinished, and its #DB
 * may still come (hw_code_late_step).  On the vCPU's own thread.
 */
void hw_code_step_give_up(struct vcpu *vcpu);

/*
 * hw_apply_everywhere - make every vCPU load the engine's registers now,
 * each on its own thread; call without the lock.  Returns VCPU_RESUME, or
 * VCPU_STOP after vm_end() when a load failed.
 */
int hw_apply_everywhere(struct vcpu *vcpu);

/*
 * hw_apply_all - hw_apply_everywhere from any thread (a vCPU's or the
 * supervisor's).  Returns 0, or -EIO after vm_end() when a load failed.
 */
int hw_apply_all(struct vm *vm);

/* hw_slots_of - the slots @vcpu has loaded for the watch @ticket (its own thread). */
unsigned hw_slots_of(struct hw_engine *hw, const struct vcpu *vcpu, uint32_t ticket);

/*
 * hw_mute_after_hit - stop @vcpu trapping on the slots of @mask, whose
 * watch it has hit (its own thread).  Returns VCPU_RESUME, or VCPU_STOP
 * after vm_end() when the load failed.
 */
int hw_mute_after_hit(struct vcpu *vcpu, unsigned mask);

/* code_bp.c */

/*
 * hw_code_exit - a debug exit on @vcpu with the instruction breakpoints
 * @exec_hits (DR6 Bn of exec slots it had loaded): the code breakpoint's
 * handler, then the instruction resumed past it.  Returns VCPU_RESUME,
 * VCPU_STOP, or VCPU_DEFAULT when none of them was a code breakpoint of
 * ours.
 */
int hw_code_exit(struct vcpu *vcpu, unsigned exec_hits);

/*
 * hw_code_step_done - the single step past a code breakpoint ended on
 * @vcpu (hv->stepping): its breakpoints back as loaded.  Returns
 * VCPU_RESUME, or VCPU_STOP after vm_end() when the load failed.
 */
int hw_code_step_done(struct vcpu *vcpu);

/*
 * hw_code_late_step - a single step's #DB on @vcpu with no step of ours
 * running: the late #DB of one given up, taken back from the guest
 * (VCPU_RESUME), or VCPU_DEFAULT when it is the guest's own; VCPU_STOP
 * after vm_end() when the registers could not be read or set.
 */
int hw_code_late_step(struct vcpu *vcpu);

/*
 * hw_engine_new - the per-VM state of hardware watches for @ncpus vCPUs
 * (ids 0 .. @ncpus-1): which debug registers hold which guest watch on
 * each, what each watch caught.  Returns NULL when out of memory.
 * hw_engine_free releases it (NULL is a no-op).
 */
struct hw_engine *hw_engine_new(unsigned ncpus);
void hw_engine_free(struct hw_engine *hw);

#endif /* CSAN_VMM_HW_ENGINE_H */
