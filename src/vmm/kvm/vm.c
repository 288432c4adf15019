/* vm.c: the virtual machine: /dev/kvm, guest RAM, irqchip, vCPUs, the run. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include <linux/kvm.h>

#include "csan/abi.h"
#include "vmm/base/clock.h"
#include "vmm/base/log.h"
#include "vmm/dev/acpi.h"
#include "vmm/console/console_ring.h"
#include "vmm/kvm/cpuid.h"
#include "vmm/hwwatch/hw_watch.h"
#include "vmm/dev/hypercall.h"
#include "vmm/guest/profile.h"
#include "vmm/console/status_line.h"
#include "vmm/kvm/vm.h"

#define KVM_DEVICE "/dev/kvm"

/*
 * Where KVM keeps the real-mode TSS and identity page table that VMX
 * without unrestricted guest needs for the APs' real-mode start; the
 * addresses QEMU uses, above any guest RAM (CSAN_RAM_LIMIT).
 */
#define VM_TSS_GPA	    0xfffbd000ull
#define VM_IDENTITY_MAP_GPA 0xfffbc000ull

/* KVM's documented vCPU limit when it reports neither MAX nor NR_VCPUS. */
#define VM_DEFAULT_MAX_VCPUS 4

static const struct {
	long cap;
	const char *name;
} vm_required_caps[] = {
	{ KVM_CAP_USER_MEMORY, "KVM_CAP_USER_MEMORY" },
	{ KVM_CAP_IRQCHIP, "KVM_CAP_IRQCHIP" },
	{ KVM_CAP_EXT_CPUID, "KVM_CAP_EXT_CPUID" },
	{ KVM_CAP_IMMEDIATE_EXIT, "KVM_CAP_IMMEDIATE_EXIT" },
};

uint8_t *vm_ram(struct vm *vm)
{
	return vm->ram;
}

uint64_t vm_ram_size(const struct vm *vm)
{
	return vm->ram_size;
}

int vm_open_kvm(char *why, size_t whylen)
{
	int fd, api, e;

	fd = open(KVM_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		if (e == ENOENT)
			snprintf(
				why, whylen,
				KVM_DEVICE
				" does not exist: build the host kernel "
				"with CONFIG_KVM and load kvm-intel or kvm-amd (modprobe kvm-intel "
				"/ modprobe kvm-amd), with virtualization enabled in the firmware");
		else if (e == EACCES || e == EPERM)
			snprintf(why, whylen,
				 "no permission to open " KVM_DEVICE ": add your user "
				 "to the group that owns it (usually 'kvm') or check its "
				 "permissions "
				 "with ls -l " KVM_DEVICE);
		else
			snprintf(why, whylen,
				 "cannot open " KVM_DEVICE ": %s (is kvm-intel or "
				 "kvm-amd loaded?)",
				 strerror(e));
		return -e;
	}
	api = ioctl(fd, KVM_GET_API_VERSION, 0);
	if (api != KVM_API_VERSION) {
		snprintf(why, whylen, KVM_DEVICE " speaks KVM API version %d; csan-vmm needs %d",
			 api, KVM_API_VERSION);
		close(fd);
		return -ENOTSUP;
	}
	return fd;
}

static int kvm_open(struct vm *vm, char *why, size_t whylen)
{
	int fd = vm_open_kvm(why, whylen);

	if (fd < 0)
		return fd;
	vm->kvm_fd = fd;
	return 0;
}

/*
 * KVM's I/O APIC starts with ID 0; give it the one the MADT names, so a
 * guest that reads the ID register sees what its firmware tables say.
 */
static int ioapic_set_id(struct vm *vm, unsigned id, char *why, size_t whylen)
{
	struct kvm_irqchip chip = { .chip_id = KVM_IRQCHIP_IOAPIC };

	if (ioctl(vm->vm_fd, KVM_GET_IRQCHIP, &chip) < 0) {
		return why_errno(why, whylen, errno, "KVM_GET_IRQCHIP (I/O APIC) failed");
	}
	chip.chip.ioapic.id = id;
	if (ioctl(vm->vm_fd, KVM_SET_IRQCHIP, &chip) < 0) {
		return why_errno(why, whylen, errno, "KVM_SET_IRQCHIP (I/O APIC ID %u) failed", id);
	}
	return 0;
}

static int kvm_check(struct vm *vm, const struct vm_config *cfg, char *why, size_t whylen)
{
	int max_vcpus;
	size_t i;

	for (i = 0; i < sizeof(vm_required_caps) / sizeof(vm_required_caps[0]); i++) {
		if (ioctl(vm->kvm_fd, KVM_CHECK_EXTENSION, vm_required_caps[i].cap) <= 0) {
			snprintf(why, whylen,
				 "this host's KVM lacks %s, which csan-vmm needs; "
				 "use a Linux 4.11 or newer host kernel",
				 vm_required_caps[i].name);
			return -ENOTSUP;
		}
	}
	if (cfg->ncpus == 0 || cfg->ncpus > CSAN_MAX_CPUS) {
		snprintf(why, whylen, "--cpus=%u: csan-vmm runs 1 to %d vCPUs", cfg->ncpus,
			 CSAN_MAX_CPUS);
		return -EINVAL;
	}
	max_vcpus = ioctl(vm->kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_MAX_VCPUS);
	if (max_vcpus <= 0)
		max_vcpus = ioctl(vm->kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_NR_VCPUS);
	if (max_vcpus <= 0)
		max_vcpus = VM_DEFAULT_MAX_VCPUS;
	if (cfg->ncpus > (unsigned)max_vcpus) {
		snprintf(why, whylen,
			 "--cpus=%u is more than this host's KVM allows in one VM "
			 "(%d); give --cpus=%d or fewer",
			 cfg->ncpus, max_vcpus, max_vcpus);
		return -EINVAL;
	}
	if (cfg->mem_bytes <= CSAN_KERNEL_MIN || cfg->mem_bytes > CSAN_RAM_LIMIT ||
	    cfg->mem_bytes % 4096) {
		snprintf(why, whylen,
			 "--memory=%" PRIu64 " bytes: give a multiple of 4 KiB above "
			 "1 MiB and at most %u MiB",
			 cfg->mem_bytes, CSAN_RAM_LIMIT >> 20);
		return -EINVAL;
	}
	return 0;
}

int vm_setup_arch(int kvm_fd, int vm_fd, char *why, size_t whylen)
{
	struct kvm_enable_cap cap = { .cap = KVM_CAP_EXIT_ON_EMULATION_FAILURE, .args = { 1 } };
	uint64_t idmap = VM_IDENTITY_MAP_GPA;

	if (ioctl(kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_SET_TSS_ADDR) > 0 &&
	    ioctl(vm_fd, KVM_SET_TSS_ADDR, (unsigned long)VM_TSS_GPA) < 0) {
		return why_errno(why, whylen, errno, "KVM_SET_TSS_ADDR failed");
	}
	if (ioctl(kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_SET_IDENTITY_MAP_ADDR) > 0 &&
	    ioctl(vm_fd, KVM_SET_IDENTITY_MAP_ADDR, &idmap) < 0) {
		return why_errno(why, whylen, errno, "KVM_SET_IDENTITY_MAP_ADDR failed");
	}
	/* Optional: emulation failures then exit with the instruction bytes. */
	if (ioctl(kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_EXIT_ON_EMULATION_FAILURE) > 0 &&
	    ioctl(vm_fd, KVM_ENABLE_CAP, &cap) < 0) {
		return why_errno(why, whylen, errno,
				 "enabling KVM_CAP_EXIT_ON_EMULATION_FAILURE failed");
	}
	return 0;
}

static int vm_setup_memory(struct vm *vm, uint64_t bytes, char *why, size_t whylen)
{
	struct kvm_userspace_memory_region region = {
		.slot = 0,
		.guest_phys_addr = 0,
		.memory_size = bytes,
	};
	void *p;

	/* NORESERVE: guests touch little of their RAM, so commit lazily. */
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		 -1, 0);
	if (p == MAP_FAILED) {
		int e = errno;

		why_set(why, whylen,
			"cannot allocate %" PRIu64 " MiB of guest RAM: %s; try a smaller --memory",
			bytes >> 20, strerror(e));
		return -e;
	}
	vm->ram = p;
	vm->ram_size = bytes;
	region.userspace_addr = (uintptr_t)p;
	if (ioctl(vm->vm_fd, KVM_SET_USER_MEMORY_REGION, &region) < 0) {
		return why_errno(why, whylen, errno, "KVM_SET_USER_MEMORY_REGION failed");
	}
	return 0;
}

static int vm_create_vcpus(struct vm *vm, char *why, size_t whylen)
{
	struct kvm_cpuid2 *supported = NULL;
	unsigned i;
	int r, khz;

	vm->vcpus = calloc(vm->ncpus, sizeof(*vm->vcpus));
	if (!vm->vcpus) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < vm->ncpus; i++) {
		r = vcpu_create(vm, i, &vm->vcpus[i], why, whylen);
		if (r)
			return r;
	}
	if (ioctl(vm->kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_GET_TSC_KHZ) > 0) {
		khz = ioctl(vm->vcpus[0]->fd, KVM_GET_TSC_KHZ, 0);
		vm->tsc_khz = khz > 0 ? (uint32_t)khz : 0;
	}
	r = cpuid_get_supported(vm->kvm_fd, &supported);
	if (r) {
		snprintf(why, whylen, "KVM_GET_SUPPORTED_CPUID failed: %s", strerror(-r));
		return r;
	}
	for (i = 0; i < vm->ncpus && !r; i++)
		r = cpuid_apply(vm->vcpus[i]->fd, supported, i, vm->ncpus, vm->tsc_khz);
	if (r)
		snprintf(why, whylen, "KVM_SET_CPUID2 for vCPU %u failed: %s", i - 1, strerror(-r));
	free(supported);
	return r;
}

int vm_create(const struct vm_config *cfg, struct vm **out, char *why, size_t whylen)
{
	struct vm *vm = calloc(1, sizeof(*vm));
	int r;

	if (!vm) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	vm->cfg = *cfg;
	vm->ncpus = cfg->ncpus;
	vm->kvm_fd = vm->vm_fd = vm->end_fd = -1;
	pthread_mutex_init(&vm->end_lock, NULL);
	pthread_mutex_init(&vm->task_lock, NULL);
	pthread_mutex_init(&vm->ring_lock, NULL);
	pthread_mutex_init(&vm->hw_probe_lock, NULL);
	pthread_cond_init(&vm->task_cond, NULL);

	r = kvm_open(vm, why, whylen);
	if (r)
		goto err;
	r = kvm_check(vm, cfg, why, whylen);
	if (r)
		goto err;
	do
		vm->vm_fd = ioctl(vm->kvm_fd, KVM_CREATE_VM, 0);
	while (vm->vm_fd < 0 && errno == EINTR);
	if (vm->vm_fd < 0) {
		r = why_errno(why, whylen, errno, "KVM_CREATE_VM failed");
		goto err;
	}
	r = vm_setup_arch(vm->kvm_fd, vm->vm_fd, why, whylen);
	if (r)
		goto err;
	r = vm_setup_memory(vm, cfg->mem_bytes, why, whylen);
	if (r)
		goto err;
	if (ioctl(vm->vm_fd, KVM_CREATE_IRQCHIP, 0) < 0) {
		r = why_errno(why, whylen, errno, "KVM_CREATE_IRQCHIP failed");
		goto err;
	}
	r = ioapic_set_id(vm, acpi_ioapic_id(cfg->ncpus), why, whylen);
	if (r)
		goto err;
	r = ioctl(vm->kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (r < (int)sizeof(struct kvm_run)) {
		r = r < 0 ? -errno : -EINVAL;
		snprintf(why, whylen, "KVM_GET_VCPU_MMAP_SIZE failed: %s", strerror(-r));
		goto err;
	}
	vm->run_size = (size_t)r;
	r = vm_create_vcpus(vm, why, whylen);
	if (r)
		goto err;
	vm->end_fd = eventfd(0, EFD_CLOEXEC);
	if (vm->end_fd < 0) {
		r = why_errno(why, whylen, errno, "eventfd failed");
		goto err;
	}
	vm->hw = hw_engine_new(vm->ncpus);
	if (!vm->hw) {
		r = -ENOMEM;
		snprintf(why, whylen, "out of memory");
		goto err;
	}
	/* One line buffer per vCPU and one for serial.one_stream. */
	r = serial_init(&vm->serial, vm->ncpus + 1, STDOUT_FILENO);
	if (r) {
		snprintf(why, whylen, "cannot set up the console: %s", strerror(-r));
		goto err;
	}
	/* The devices every guest has; a profile adds its own (profile.h). */
	r = pio_register(&vm->pio, CSAN_COM1_PORT, SERIAL_NPORTS, "16550", serial_pio, &vm->serial);
	if (!r)
		r = pio_register(&vm->pio, CSAN_HC_PORT_BASE, CSAN_HC_PORT_COUNT, "hypercalls",
				 hc_pio, NULL);
	if (r) {
		snprintf(why, whylen,
			 "internal error: cannot register the console and hypercall "
			 "ports: %s",
			 strerror(-r));
		goto err;
	}
	*out = vm;
	return 0;

err:
	vm_destroy(vm);
	return r;
}

void vm_destroy(struct vm *vm)
{
	unsigned i;

	if (!vm)
		return;
	serial_destroy(&vm->serial);
	if (vm->vcpus) {
		for (i = 0; i < vm->ncpus; i++)
			vcpu_destroy(vm->vcpus[i]);
		free(vm->vcpus);
	}
	if (vm->vm_fd >= 0)
		close(vm->vm_fd);
	if (vm->ram)
		munmap(vm->ram, vm->ram_size);
	if (vm->kvm_fd >= 0)
		close(vm->kvm_fd);
	if (vm->end_fd >= 0)
		close(vm->end_fd);
	hw_engine_free(vm->hw);
	pthread_cond_destroy(&vm->task_cond);
	pthread_mutex_destroy(&vm->task_lock);
	pthread_mutex_destroy(&vm->ring_lock);
	pthread_mutex_destroy(&vm->hw_probe_lock);
	pthread_mutex_destroy(&vm->end_lock);
	free(vm);
}

bool vm_end(struct vm *vm, enum vm_end end, int guest_status, int signal)
{
	uint64_t one = 1;
	bool first;

	pthread_mutex_lock(&vm->end_lock);
	first = !vm->ended;
	if (first) {
		vm->ended = true;
		vm->outcome = (struct vm_outcome){ end, guest_status, signal };
	}
	pthread_mutex_unlock(&vm->end_lock);
	__atomic_store_n(&vm->stop, 1, __ATOMIC_SEQ_CST);
	/* One write to a fresh eventfd cannot block or overflow. */
	if (first && write(vm->end_fd, &one, sizeof(one)) != sizeof(one))
		log_error_errno(errno, "cannot wake the supervisor");
	return first;
}

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
		tick_ms = status_line_tick(vm);
		if (tick_ms >= 0 && (wait_ms < 0 || tick_ms < wait_ms))
			wait_ms = tick_ms;
		tick_ms = vm->profile && vm->profile->tick ? vm->profile->tick(vm) : -1;
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
	if (vm->cfg.status_line)
		status_line_begin(vm);
	r = vcpu_start_all(vm);
	if (r)
		goto out_close;
	vm_supervise(vm, sig_fd);
	status_line_end();
	vcpu_stop_all(vm);
	console_ring_drain(vm);
	console_flush(&vm->serial);
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
	status_line_end();
	close(sig_fd);
out_mask:
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return r;
}
