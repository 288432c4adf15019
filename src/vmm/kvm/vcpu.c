/* vcpu.c: one vCPU: its KVM file, its thread and run loop, cross-vCPU tasks. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "vmm/base/clock.h"
#include "vmm/base/log.h"
#include "vmm/kvm/exit.h"
#include "vmm/kvm/kvm_api.h"
#include "vmm/kvm/sandbox.h"
#include "vmm/kvm/vcpu.h"
#include "vmm/kvm/vm.h"

/* The vCPU whose thread this is; NULL on other threads. */
static __thread struct vcpu *vcpu_self;

int vcpu_create(struct vm *vm, unsigned id, struct vcpu **out, char *why, size_t whylen)
{
	struct vcpu *vcpu = calloc(1, sizeof(*vcpu));

	if (!vcpu) {
		why_set(why, whylen, "out of memory for vCPU %u", id);
		return -ENOMEM;
	}
	vcpu->vm = vm;
	vcpu->id = id;
	vcpu->fd = kvm_create_vcpu(vm->vm_fd, id, vm->run_size, &vcpu->run, why, whylen);
	if (vcpu->fd < 0) {
		int r = vcpu->fd;

		free(vcpu);
		return r;
	}
	*out = vcpu;
	return 0;
}

void vcpu_destroy(struct vcpu *vcpu)
{
	if (!vcpu)
		return;
	munmap(vcpu->run, vcpu->vm->run_size);
	close(vcpu->fd);
	free(vcpu);
}

/* How long a vcpu_run_on_all() caller waits before kicking the laggards again. */
#define VCPU_REKICK_MS 20

void vcpu_kick(struct vcpu *vcpu)
{
	/* immediate_exit covers the window before the thread enters KVM_RUN. */
	__atomic_store_n(&vcpu->run->immediate_exit, 1, __ATOMIC_SEQ_CST);
	if (vcpu->started)
		pthread_kill(vcpu->thread, VCPU_KICK_SIGNAL);
}

/*
 * Run the task posted to @vcpu on the calling thread.  Called and returns
 * with vm->task_lock held; drops it while the task runs.
 */
static void task_serve_locked(struct vcpu *vcpu)
{
	struct vm *vm = vcpu->vm;
	int (*fn)(struct vcpu *, void *) = vcpu->task_fn;
	void *arg = vcpu->task_arg;
	int r;

	pthread_mutex_unlock(&vm->task_lock);
	r = fn(vcpu, arg);
	pthread_mutex_lock(&vm->task_lock);
	vcpu->task_ret = r;
	__atomic_store_n(&vcpu->task_pending, 0, __ATOMIC_SEQ_CST);
	vm->task_left--;
	pthread_cond_broadcast(&vm->task_cond);
}

static void task_serve(struct vcpu *vcpu)
{
	pthread_mutex_lock(&vcpu->vm->task_lock);
	if (vcpu->task_pending)
		task_serve_locked(vcpu);
	pthread_mutex_unlock(&vcpu->vm->task_lock);
}

/* Whether a task for @only (NULL: for every vCPU) is @v's. */
static bool task_for(const struct vcpu *v, const struct vcpu *only)
{
	return !only || v == only;
}

/* Post @fn to @only's (NULL: every vCPU's) serving thread but @self's; task_lock held. */
static void task_post_locked(struct vm *vm, struct vcpu *self, struct vcpu *only,
			     int (*fn)(struct vcpu *, void *), void *arg)
{
	unsigned i;

	for (i = 0; i < vm->ncpus; i++) {
		struct vcpu *v = vm->vcpus[i];

		v->task_posted = task_for(v, only) && v != self && v->serving;
		if (!v->task_posted)
			continue;
		v->task_fn = fn;
		v->task_arg = arg;
		v->task_ret = 0;
		__atomic_store_n(&v->task_pending, 1, __ATOMIC_SEQ_CST);
		vm->task_left++;
		/* Under the lock: a serving thread has not been joined yet. */
		vcpu_kick(v);
	}
	/* Wake vCPU threads that wait for the token themselves. */
	pthread_cond_broadcast(&vm->task_cond);
}

/* vcpu_run_on_all, or vcpu_run_on when @only is set. */
static int run_on(struct vm *vm, struct vcpu *only, int (*fn)(struct vcpu *vcpu, void *arg),
		  void *arg)
{
	struct vcpu *self = vcpu_self && vcpu_self->vm == vm ? vcpu_self : NULL;
	unsigned i;
	int ret = 0;

	pthread_mutex_lock(&vm->task_lock);
	/* One caller at a time; a waiting vCPU serves whoever holds the token. */
	while (vm->task_busy) {
		if (self && self->task_pending)
			task_serve_locked(self);
		else
			pthread_cond_wait(&vm->task_cond, &vm->task_lock);
	}
	vm->task_busy = true;
	if (self)
		vcpu_doing(self, only ? "waiting for another vCPU to run a task"
				      : "waiting for every vCPU to run its task");
	task_post_locked(vm, self, only, fn, arg);
	pthread_mutex_unlock(&vm->task_lock);

	/* The caller's own vCPU, and those without a thread, run here. */
	for (i = 0; i < vm->ncpus; i++) {
		struct vcpu *v = vm->vcpus[i];
		int r;

		if (v->task_posted || !task_for(v, only))
			continue;
		r = fn(v, arg);
		if (r && !ret)
			ret = r;
	}

	pthread_mutex_lock(&vm->task_lock);
	while (vm->task_left) {
		struct timespec until;

		/*
		 * A kick can be lost: seen in the emulated host, where QEMU's
		 * nested SVM sometimes does not bring a vCPU spinning in the
		 * guest out of KVM_RUN for the signal, and the guest then waits
		 * on this vCPU's lock forever.  Kick the ones still owing their
		 * task again every VCPU_REKICK_MS.
		 */
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += VCPU_REKICK_MS * 1000000l;
		if (until.tv_nsec >= 1000000000l) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000l;
		}
		if (pthread_cond_timedwait(&vm->task_cond, &vm->task_lock, &until) != ETIMEDOUT)
			continue;
		for (i = 0; i < vm->ncpus; i++)
			if (vm->vcpus[i]->task_posted && vm->vcpus[i]->task_pending) {
				vm->rekicks++;
				vcpu_kick(vm->vcpus[i]);
			}
	}
	for (i = 0; i < vm->ncpus; i++) {
		struct vcpu *v = vm->vcpus[i];

		if (v->task_posted && v->task_ret && !ret)
			ret = v->task_ret;
		v->task_posted = false;
	}
	vm->task_busy = false;
	pthread_cond_broadcast(&vm->task_cond);
	pthread_mutex_unlock(&vm->task_lock);
	return ret;
}

int vcpu_run_on_all(struct vm *vm, int (*fn)(struct vcpu *vcpu, void *arg), void *arg)
{
	return run_on(vm, NULL, fn, arg);
}

int vcpu_run_on(struct vcpu *vcpu, int (*fn)(struct vcpu *vcpu, void *arg), void *arg)
{
	return run_on(vcpu->vm, vcpu, fn, arg);
}

/* The realtime clock (task_cond's) @ns from now. */
static struct timespec realtime_after(uint64_t ns)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_sec += (time_t)(ns / 1000000000u);
	t.tv_nsec += (long)(ns % 1000000000u);
	if (t.tv_nsec >= 1000000000l) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000l;
	}
	return t;
}

/* A hold looks at vm_stopping() at least this often: vm_end does not signal task_cond. */
#define VCPU_HOLD_POLL_NS 1000000u

void vcpu_hold_until(struct vcpu *vcpu, uint64_t ns, bool (*done)(struct vcpu *vcpu, void *arg),
		     void *arg)
{
	struct vm *vm = vcpu->vm;
	const uint64_t end = clock_now_ns() + ns;
	uint64_t now;

	pthread_mutex_lock(&vm->task_lock);
	while (!vm_stopping(vm) && (now = clock_now_ns()) < end) {
		struct timespec until;

		/*
		 * Asked without task_lock: @done takes its own locks (the
		 * engine's), and a task served meanwhile is seen next time.
		 */
		if (done) {
			bool over;

			pthread_mutex_unlock(&vm->task_lock);
			over = done(vcpu, arg);
			pthread_mutex_lock(&vm->task_lock);
			if (over)
				break;
		}
		if (vcpu->task_pending) {
			task_serve_locked(vcpu);
			continue;
		}
		until = realtime_after(end - now < VCPU_HOLD_POLL_NS ? end - now
								     : VCPU_HOLD_POLL_NS);
		/* task_post_locked broadcasts task_cond: a posted task wakes the hold. */
		pthread_cond_timedwait(&vm->task_cond, &vm->task_lock, &until);
	}
	pthread_mutex_unlock(&vm->task_lock);
}

/* Returns 0 when told to stop or the run ended, a negative errno on a host error. */
static int vcpu_loop(struct vcpu *vcpu)
{
	struct vm *vm = vcpu->vm;
	int r;

	for (;;) {
		/*
		 * Clear immediate_exit before looking at the flags: a kicker
		 * sets its flag first, then immediate_exit, so either we see
		 * the flag here or KVM_RUN sees immediate_exit.
		 */
		__atomic_store_n(&vcpu->run->immediate_exit, 0, __ATOMIC_SEQ_CST);
		if (vm_stopping(vm))
			return 0;
		if (__atomic_load_n(&vcpu->task_pending, __ATOMIC_SEQ_CST)) {
			vcpu_doing(vcpu, "running a task another vCPU posted");
			task_serve(vcpu);
			continue;
		}
		vcpu_doing(vcpu, "in KVM_RUN");
		if (ioctl(vcpu->fd, KVM_RUN, 0) < 0) {
			/* EAGAIN: PVM's answer when INIT reaches a blocked AP. */
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		r = vcpu_handle_exit(vcpu);
		if (r != VCPU_RESUME)
			return r < 0 ? r : 0;
	}
}

static void *vcpu_thread(void *arg)
{
	struct vcpu *vcpu = arg;
	struct vm *vm = vcpu->vm;
	sigset_t kick;
	char name[16];
	char why[256];
	int r;

	vcpu_self = vcpu;
	snprintf(name, sizeof(name), "csan-vcpu%u", vcpu->id);
	pthread_setname_np(pthread_self(), name);
	sigemptyset(&kick);
	sigaddset(&kick, VCPU_KICK_SIGNAL);
	pthread_sigmask(SIG_UNBLOCK, &kick, NULL);

	/* Set-up is done: from here the thread serves the guest (sandbox.c). */
	if (vm->cfg.sandbox && sandbox_enter(why, sizeof(why))) {
		log_error("vCPU %u: %s", vcpu->id, why);
		vm_end(vm, VM_END_HOST_ERROR, 0, 0);
		r = 0;
	} else {
		r = vcpu_loop(vcpu);
	}
	if (r < 0) {
		log_error_errno(-r, "vCPU %u: KVM_RUN failed", vcpu->id);
		vm_end(vm, VM_END_HOST_ERROR, 0, 0);
	}
	/* Serve a task posted meanwhile; after this, callers run ours themselves. */
	pthread_mutex_lock(&vm->task_lock);
	while (vcpu->task_pending)
		task_serve_locked(vcpu);
	vcpu->serving = false;
	pthread_mutex_unlock(&vm->task_lock);
	return NULL;
}

/* How long the end of a run waits for a vCPU thread before saying so. */
#define VCPU_STOP_GRACE_S 10

static void kick_handler(int sig)
{
	(void)sig; /* its only job is to interrupt KVM_RUN */
}

int vcpu_start_all(struct vm *vm)
{
	/*
	 * SA_RESTART: a kick must not cut short a write the vCPU thread is
	 * blocked in (a report or console output to a slow terminal or serial
	 * line: stdio drops the rest of a write that fails with EINTR).
	 * KVM_RUN still comes back: KVM ends it with -EINTR, which the kernel
	 * never restarts (KVM_EXIT_INTR, Documentation/virt/kvm/api.rst).
	 */
	struct sigaction sa = { .sa_handler = kick_handler, .sa_flags = SA_RESTART };
	unsigned i;
	int r = 0;

	if (vm->cfg.sandbox) {
		char why[256];

		r = sandbox_prepare(why, sizeof(why));
		if (r) {
			log_error("%s", why);
			return r;
		}
	}
	sigemptyset(&sa.sa_mask);
	if (sigaction(VCPU_KICK_SIGNAL, &sa, NULL) < 0) {
		r = -errno;
		log_error_errno(errno, "cannot install the vCPU kick signal");
		return r;
	}
	/* Under task_lock, so no task is posted to a half-started thread. */
	pthread_mutex_lock(&vm->task_lock);
	for (i = 0; i < vm->ncpus; i++) {
		struct vcpu *v = vm->vcpus[i];

		v->serving = true;
		r = pthread_create(&v->thread, NULL, vcpu_thread, v);
		if (r) {
			v->serving = false;
			break;
		}
		v->started = true;
	}
	pthread_mutex_unlock(&vm->task_lock);
	if (r) {
		log_error_errno(r, "cannot start a thread for vCPU %u", i);
		vm_end(vm, VM_END_HOST_ERROR, 0, 0);
		vcpu_stop_all(vm);
		return -r;
	}
	return 0;
}

void vcpu_stop_all(struct vm *vm)
{
	unsigned i;

	__atomic_store_n(&vm->stop, 1, __ATOMIC_SEQ_CST);
	for (i = 0; i < vm->ncpus; i++)
		if (vm->vcpus[i]->started)
			vcpu_kick(vm->vcpus[i]);
	for (i = 0; i < vm->ncpus; i++) {
		struct vcpu *v = vm->vcpus[i];
		struct timespec until;
		const char *what;

		if (!v->started)
			continue;
		/*
		 * A thread that does not stop is a csan-vmm bug (a lock never
		 * released, a wait never answered): say what it was doing
		 * rather than hang without a word.
		 */
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += VCPU_STOP_GRACE_S;
		if (pthread_timedjoin_np(v->thread, NULL, &until) != 0) {
			char port[16] = "";

			what = __atomic_load_n(&v->doing, __ATOMIC_RELAXED);
			if (what && strstr(what, "port"))
				snprintf(port, sizeof(port), " %#x",
					 __atomic_load_n(&v->doing_port, __ATOMIC_RELAXED));
			log_error("vCPU %u's thread has not stopped after %d s; it was %s%s (a "
				  "csan-vmm bug: please report it)",
				  i, VCPU_STOP_GRACE_S, what ? what : "starting", port);
			pthread_join(v->thread, NULL);
		}
		v->started = false;
	}
}
