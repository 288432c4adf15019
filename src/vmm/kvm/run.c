/* run.c: one run of the VM: the vCPU threads, the supervisor, the timeout. */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <linux/kvm.h>

#include "vmm/base/clock.h"
#include "vmm/base/log.h"
#include "vmm/kvm/vm.h"

/* Wait for the end of the run, a stop signal or the timeout; record which. */
static void vm_supervise(struct vm *vm, int sig_fd)
{
	struct pollfd pfd[2] = { { .fd = sig_fd, .events = POLLIN },
				 { .fd = vm->end_fd, .events = POLLIN } };
	int64_t deadline = clock_now_ms() + (int64_t)vm->cfg.timeout_s * 1000;

	for (;;) {
		int wait_ms = -1, tick_ms;

		if (vm->cfg.timeout_s) {
			int64_t left = deadline - clock_now_ms();

			if (left <= 0) {
				vm_end(vm, VM_END_TIMEOUT, 0, 0);
				return;
			}
			wait_ms = left > INT_MAX ? INT_MAX : (int)left;
		}
		tick_ms = vm_hooks_call(vm, VM_HOOK_TICK, NULL);
		if (tick_ms >= 0 && (wait_ms < 0 || tick_ms < wait_ms))
			wait_ms = tick_ms;
		if (poll(pfd, 2, wait_ms) < 0) {
			if (errno == EINTR)
				continue;
			log_error_errno(errno, "poll failed");
			vm_end(vm, VM_END_HOST_ERROR, 0, 0);
			return;
		}
		if (pfd[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(sig_fd, &si, sizeof(si)) != sizeof(si))
				si.ssi_signo = SIGINT;
			vm_end(vm, VM_END_SIGNAL, 0, (int)si.ssi_signo);
			return;
		}
		if (pfd[1].revents & POLLIN)
			return;
	}
}

static const char *mp_state_note(struct vcpu *vcpu)
{
	struct kvm_mp_state mp;

	if (ioctl(vcpu->fd, KVM_GET_MP_STATE, &mp) < 0)
		return "";
	switch (mp.mp_state) {
	case KVM_MP_STATE_UNINITIALIZED:
	case KVM_MP_STATE_INIT_RECEIVED: return " (never started: waiting for INIT-SIPI)";
	case KVM_MP_STATE_HALTED: return " (halted)";
	default: return "";
	}
}

/* After the threads are joined, so the ioctls may run on this thread. */
static void vm_report_timeout(struct vm *vm)
{
	unsigned i;

	log_error("guest still running after --timeout=%u s", vm->cfg.timeout_s);
	for (i = 0; i < vm->ncpus; i++) {
		struct vcpu *v = vm->vcpus[i];
		struct kvm_regs regs;
		struct kvm_sregs sregs;

		if (ioctl(v->fd, KVM_GET_REGS, &regs) < 0 ||
		    ioctl(v->fd, KVM_GET_SREGS, &sregs) < 0) {
			log_error_errno(errno, "vCPU %u: cannot read RIP", i);
			continue;
		}
		/* Real-mode code (an AP's start-up) runs at CS base + IP. */
		if (sregs.cs.base && !sregs.cs.l)
			log_error("vCPU %u: RIP %#llx (CS base %#llx)%s", i,
				  (unsigned long long)regs.rip, (unsigned long long)sregs.cs.base,
				  mp_state_note(v));
		else
			log_error("vCPU %u: RIP %#llx%s", i, (unsigned long long)regs.rip,
				  mp_state_note(v));
	}
}

int vm_run(struct vm *vm, struct vm_outcome *out)
{
	sigset_t stop_sigs, old;
	int sig_fd, r;

	/* Blocked in every thread (vCPU threads inherit it), read through a signalfd. */
	sigemptyset(&stop_sigs);
	sigaddset(&stop_sigs, SIGINT);
	sigaddset(&stop_sigs, SIGTERM);
	r = pthread_sigmask(SIG_BLOCK, &stop_sigs, &old);
	if (r) {
		log_error_errno(r, "cannot block SIGINT/SIGTERM");
		return -r;
	}
	sig_fd = signalfd(-1, &stop_sigs, SFD_CLOEXEC);
	if (sig_fd < 0) {
		r = -errno;
		log_error_errno(errno, "signalfd failed");
		goto out_mask;
	}
	vm_hooks_call(vm, VM_HOOK_RUN_START, NULL);
	r = vcpu_start_all(vm);
	if (r)
		goto out_close;
	vm_supervise(vm, sig_fd);
	vm_hooks_call(vm, VM_HOOK_RUN_ENDING, NULL);
	vcpu_stop_all(vm);
	vm_hooks_call(vm, VM_HOOK_VCPUS_STOPPED, NULL);
	vm_hooks_call(vm, VM_HOOK_RUN_END, NULL);
	/*
	 * Under end_lock: the control thread may have written the outcome,
	 * and the eventfd that woke the supervisor orders nothing in C's
	 * memory model (TSan flagged the plain read).
	 */
	pthread_mutex_lock(&vm->end_lock);
	*out = vm->outcome;
	pthread_mutex_unlock(&vm->end_lock);
	if (out->end == VM_END_TIMEOUT)
		vm_report_timeout(vm);
out_close:
	if (r)
		vm_hooks_call(vm, VM_HOOK_RUN_ENDING, NULL);
	close(sig_fd);
out_mask:
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return r;
}
