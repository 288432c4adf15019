/* vcpu.h: one vCPU: its KVM file, its thread and run loop, cross-vCPU tasks. */
#ifndef CSAN_VMM_VCPU_H
#define CSAN_VMM_VCPU_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/kvm.h>

#include "vmm/kvm/hooks.h"

struct vm;

/* Interrupts a vCPU thread's KVM_RUN (together with run->immediate_exit). */
#define VCPU_KICK_SIGNAL SIGUSR1

struct vcpu {
	struct vm *vm;
	unsigned id; /* index = KVM vCPU id = APIC ID */
	int fd;
	struct kvm_run *run;
	pthread_t thread;
	bool started; /* thread created and not yet joined */

	/*
	 * What its thread is doing (atomic, for the message when it does not
	 * stop at the end of a run): a fixed phrase, and the I/O port for
	 * an I/O exit.
	 */
	const char *doing;
	uint32_t doing_port;

	/* The vcpu_run_on_all() slot, under vm->task_lock. */
	bool serving;	  /* its thread will run what is posted here */
	int task_pending; /* atomic: the loop peeks without the lock */
	bool task_posted; /* the token holder's own mark */
	int (*task_fn)(struct vcpu *vcpu, void *arg);
	void *task_arg;
	int task_ret;
};

/*
 * vcpu_create - create vCPU @id of @vm (its fd and kvm_run mapping, no
 * CPUID yet: vm_create applies that once it knows the TSC frequency).
 * Returns 0 with the vCPU in @out, or a negative errno with a message in
 * @why.
 */
int vcpu_create(struct vm *vm, unsigned id, struct vcpu **out, char *why, size_t whylen);

/* vcpu_destroy - unmap and close what vcpu_create made; NULL is a no-op. */
void vcpu_destroy(struct vcpu *vcpu);

/*
 * vcpu_start_all - install the kick signal's handler and start one thread
 * per vCPU running its loop.  Returns 0, or a negative errno after
 * printing why; threads already started are then stopped and joined.
 */
int vcpu_start_all(struct vm *vm);

/* vcpu_stop_all - tell every vCPU thread to leave its loop and join it. */
void vcpu_stop_all(struct vm *vm);

/* vcpu_kick - make @vcpu's thread come out of KVM_RUN and look at its flags. */
void vcpu_kick(struct vcpu *vcpu);

/*
 * vcpu_run_on_all - run @fn(vcpu, @arg) for every vCPU of @vm on that
 * vCPU's own thread (vCPU ioctls belong there), and wait for all.  From a
 * vCPU thread the caller's own call runs inline; vCPUs without a running
 * thread (before vm_run, after it, or stopped) run on the caller's thread.
 * While waiting, a vCPU thread keeps serving tasks posted to it, so two
 * vCPUs calling at once do not deadlock.  @fn must not call
 * vcpu_run_on_all itself.  Returns 0, or the first non-zero @fn result.
 */
int vcpu_run_on_all(struct vm *vm, int (*fn)(struct vcpu *vcpu, void *arg), void *arg);

/*
 * vcpu_run_on - vcpu_run_on_all for @vcpu alone: the others keep running
 * their guest (each stop is an exit, and in a nested host an exit is
 * dear).  Returns 0, or @fn's result.
 */
int vcpu_run_on(struct vcpu *vcpu, int (*fn)(struct vcpu *vcpu, void *arg), void *arg);

/*
 * vcpu_hold_until - keep @vcpu, on its own thread and out of KVM_RUN, from
 * running its guest for up to @ns nanoseconds, while it still runs the
 * vcpu_run_on_all tasks posted to it (another vCPU arming a watch must
 * not wait for the hold to end).  Returns early when the run stops, or
 * when @done (if not NULL) says yes: it is asked at least once a
 * millisecond, and after each task served.
 */
void vcpu_hold_until(struct vcpu *vcpu, uint64_t ns, bool (*done)(struct vcpu *vcpu, void *arg),
		     void *arg);

/* vcpu_hold - vcpu_hold_until for the whole @ns. */
static inline void vcpu_hold(struct vcpu *vcpu, uint64_t ns)
{
	vcpu_hold_until(vcpu, ns, NULL, NULL);
}

/* vcpu_doing - say what @vcpu's thread is doing now (for vcpu_stop_all's message). */
static inline void vcpu_doing(struct vcpu *vcpu, const char *what)
{
	__atomic_store_n(&vcpu->doing, what, __ATOMIC_RELAXED);
}

#endif /* CSAN_VMM_VCPU_H */
