/* hw_watch.h: hardware-watchpoint mode: guest watches backed by debug registers. */
#ifndef CSAN_VMM_HW_WATCH_H
#define CSAN_VMM_HW_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "csan/abi.h"

struct vm;
struct vcpu;
struct hw_engine;

/*
 * hw_watch_attach - give @vm the engine (vm->hw) and its KVM_EXIT_DEBUG
 * handler (hw_watch_debug_exit), freed with the VM.  Returns 0, or a
 * negative errno with a message in @why.
 */
int hw_watch_attach(struct vm *vm, char *why, size_t whylen);

/* What a debug register caught: the first hit of a watch that counts. */
struct hw_watch_hit {
	uint32_t cpu, context, task_id, access, size;
	uint64_t addr; /* where the access went, as far as the trapping slot tells (its start) */
	uint64_t ip;   /* the accessing instruction, or with ip_after the trap PC past it */
	bool ip_after; /* the instruction could not be decoded */
	bool excused;  /* made with checking disabled: data_race(), not a race */
	bool runtime;  /* the sanitizer's own access (its value read), not a race */
	uint32_t nret; /* return addresses in ret[] */
	uint64_t ret[CSAN_REPORT_MAX_STACK];
};

/* What a watch saw, at its disarm. */
struct hw_watch_result {
	uint32_t hits; /* accesses that trapped and count */
	bool have_hit; /* with the first in @hit */
	struct hw_watch_hit hit;
};

/*
 * How the engine reads the guest, which each guest profile gives it
 * (guest/csan/csan_view.c, guest/linux/linux_watch.c): what a trapping
 * vCPU runs (task or interrupt, which task), whether it made its access
 * with checking disabled, and whether a PC is the sanitizer's own code.
 * Called on the trapping vCPU's thread.  Without a view every hit counts
 * as a task's, with checking on.
 */
struct hw_guest_view {
	uint32_t (*context)(struct vcpu *vcpu);
	uint32_t (*task_id)(struct vcpu *vcpu);
	bool (*checking_disabled)(struct vcpu *vcpu, uint32_t context);
	bool (*runtime_pc)(struct vm *vm, uint64_t pc);
};

/* hw_watch_set_view - read the guest through @view from now on (before the vCPUs run). */
void hw_watch_set_view(struct hw_engine *hw, const struct hw_guest_view *view);

/*
 * hw_watch_arm - on @vcpu's thread, watch [@addr, @addr + *@size) on
 * every vCPU for accesses conflicting with @access (CSAN_ACCESS_*) before
 * returning.  *@status gets a csan_hw_status (CSAN_HW_OFF in soft mode),
 * *@ticket the watch's name when armed, *@size the bytes covered.
 * Returns VCPU_RESUME, or VCPU_STOP after vm_end() on a host error.
 */
int hw_watch_arm(struct vcpu *vcpu, uint64_t addr, uint32_t *size, uint32_t access,
		 uint32_t *ticket, uint32_t *status);

/*
 * hw_watch_caught - whether @vcpu's watch @ticket has caught an access
 * that counts so far (it stays armed).  For a watcher that holds its vCPU
 * until the other side shows.
 */
bool hw_watch_caught(struct vcpu *vcpu, uint32_t ticket);

/*
 * hw_watch_arm_host - hw_watch_arm for a watch the host asks for itself
 * (--watch=sample), in any watch mode: a sampling run is in neither soft
 * nor hw mode.
 */
int hw_watch_arm_host(struct vcpu *vcpu, uint64_t addr, uint32_t *size, uint32_t access,
		      uint32_t *ticket, uint32_t *status);

/*
 * Code breakpoints (--watch=sample): execution breakpoints in the debug
 * registers of every vCPU, beside the data watches and the guest's own
 * breakpoints (dr_share.c), at most HW_CODE_MAX at once.  A hit calls the
 * handler the owner set with hw_watch_set_code_hit, on the hitting vCPU's
 * thread, before the instruction runs; when the handler returns
 * VCPU_RESUME the engine resumes the instruction with RFLAGS.RF set, so
 * the breakpoint does not fire on it again (SDM Vol. 3B, 18.3.1.1).
 */
#define HW_CODE_MAX 3

typedef int (*hw_code_hit_fn)(struct vcpu *vcpu, uint64_t addr, void *ctx);

/* hw_watch_set_code_hit - call @fn(vcpu, breakpoint address, @ctx) at code breakpoint hits. */
void hw_watch_set_code_hit(struct hw_engine *hw, hw_code_hit_fn fn, void *ctx);

/*
 * hw_code_breakpoints_set - from any thread: the code breakpoints are
 * @addrs[0..@n) from now on (the old ones go), loaded on every vCPU
 * before it returns.  Slots the data watches or the guest hold are not
 * taken: *@loaded gets how many of @addrs got one (the first ones).
 * Returns 0, or a negative errno after vm_end() when a vCPU could not
 * load them.
 */
int hw_code_breakpoints_set(struct vm *vm, const uint64_t *addrs, unsigned n, unsigned *loaded);

/*
 * hw_watch_disarm - end @vcpu's watch @ticket on every vCPU and tell what
 * it caught in @res.  Returns VCPU_RESUME, -ENOENT when @ticket is not a
 * watch @vcpu armed, or VCPU_STOP after vm_end() on a host error.
 */
int hw_watch_disarm(struct vcpu *vcpu, uint32_t ticket, struct hw_watch_result *res);

/*
 * hw_watch_debug_exit - a KVM_EXIT_DEBUG on @vcpu (its own thread): a
 * data watch of ours that trapped is recorded (instruction, registers,
 * stack) for the watch it belongs to; anything else is said on stderr and
 * handed to the guest as the #DB it would have seen without us.  Returns
 * VCPU_RESUME, or VCPU_STOP after vm_end() on a host error.
 */
int hw_watch_debug_exit(struct vcpu *vcpu);

/*
 * hw_watch_complete_report - @r came from @cpu with a hw_ticket: give the
 * side the debug registers caught the stack unwound at the trap, and mark
 * a soft side that the registers also caught as seen by both.  Unknown or
 * stale tickets leave @r as it is (the guest is not trusted).
 */
void hw_watch_complete_report(struct vm *vm, unsigned cpu, struct csan_hc_report *r);

/*
 * hw_watch_print_stats - one line of what the engine did (arms, slots
 * short, hits, foreign debug exits, mean arm and disarm cost); nothing
 * when it never armed.
 */
void hw_watch_print_stats(struct vm *vm, FILE *f);

#endif /* CSAN_VMM_HW_WATCH_H */
