/* vm.h: the virtual machine: creation, guest RAM, boot set-up, the run. */
#ifndef CSAN_VMM_VM_H
#define CSAN_VMM_VM_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/kvm/pio.h"
#include "vmm/dev/serial.h"

struct vcpu;
struct sym;
struct unwinder;
struct report_log;
struct csan_control;
struct hw_engine;
struct elf_guest;
struct guest_profile;

struct vm_config {
	unsigned ncpus;
	uint64_t mem_bytes;
	unsigned timeout_s; /* 0 = none */
	bool quiet;
	bool debug; /* report each unhandled I/O port and MMIO address once */
	bool status_line; /* draw the live status line on stderr (status_line.c) */
	bool sandbox; /* vCPU threads enter the seccomp sandbox (sandbox.c) */
};

enum vm_end {
	VM_END_EXIT,	   /* CSAN_HC_EXIT; guest_status holds its status */
	VM_END_FAULT,	   /* exception, panic, triple fault, emulation failure... */
	VM_END_TIMEOUT,	   /* cfg.timeout_s elapsed */
	VM_END_SIGNAL,	   /* SIGINT or SIGTERM; signal holds which */
	VM_END_HOST_ERROR, /* a KVM ioctl failed under the guest */
	VM_END_QUIT,	   /* the user asked: Ctrl-a x or the control socket's quit */
};

struct vm_outcome {
	enum vm_end end;
	int guest_status;
	int signal;
};

/*
 * The VM.  main.c uses only the functions below; the fields are shared by
 * the VMM's own files (vcpu.c, hypercall.c, ...), as in kvmtool.
 */
struct vm {
	struct vm_config cfg;
	int kvm_fd;
	int vm_fd;
	uint8_t *ram;
	uint64_t ram_size;
	size_t run_size;  /* KVM_GET_VCPU_MMAP_SIZE */
	uint32_t tsc_khz; /* 0 if KVM cannot say */
	unsigned ncpus;
	struct vcpu **vcpus;
	struct serial serial;
	struct pio_bus pio; /* the devices' port ranges (pio.c) */
	/* KVM's coalesced PIO ring for the UART (console_ring.c); NULL: none. */
	struct kvm_coalesced_mmio_ring *ring;
	unsigned ring_max;
	pthread_mutex_t ring_lock;
	bool pc_platform;   /* the PC's ACPI extras, for a Linux guest (acpi.c) */

	/* The loaded kernel image (guest_run.c owns it); NULL before the load. */
	const struct elf_guest *image;

	/* The kind of guest (profile.h) and the profile's own state; NULL: none. */
	const struct guest_profile *profile;
	void *profile_state;

	/* The end of the run: the first vm_end() call wins. */
	pthread_mutex_t end_lock;
	bool ended;
	struct vm_outcome outcome;
	int end_fd; /* eventfd that wakes vm_run's supervisor */
	int stop;   /* atomic: vCPU threads leave their loops */

	/* vcpu_run_on_all(): one task in flight at a time (vcpu.c). */
	pthread_mutex_t task_lock;
	pthread_cond_t task_cond;
	bool task_busy;
	unsigned task_left;
	uint64_t rekicks; /* kicks sent again to a vCPU slow to run its task */

	/*
	 * The report pipeline (src/watch), set by main before vm_run and
	 * owned by it; NULL where absent.  Faults print symbolized stacks
	 * through sym/unw, CSAN_HC_REPORT goes to reports.
	 */
	struct sym *sym;
	struct unwinder *unw;
	struct report_log *reports;

	/* The guest runtime's control block (CSAN_HC_ATTACH), in guest RAM; NULL until attached. */
	struct csan_control *control;
	unsigned control_ncounters; /* atomic: checked at attach; reads stay below it */
	unsigned control_size;	    /* atomic: bytes of the block, 0 until attached */

	/*
	 * Watch mode (watch_mode.c): watch_hw is the mode asked for (atomic,
	 * 1 = hw), mirrored into control->watch_hw once the guest attached.
	 * hw_unavailable says why this host cannot run hw mode, empty when it
	 * can; valid once hw_probed is set.  The caller of guest_run may know
	 * it (--watch=hw, --compare); otherwise the first switch to hw mode
	 * finds it, under hw_probe_lock.
	 */
	int watch_hw;
	pthread_mutex_t hw_probe_lock;
	bool hw_probed;
	char hw_unavailable[256];
	struct hw_engine *hw; /* the debug-register engine (hwwatch/) */

	/* Debug mode: ports and MMIO pages already reported (atomic bytes). */
	uint8_t port_seen[65536];
	uint8_t mmio_reported;
};

/*
 * vm_create - open /dev/kvm and build a VM for @cfg: guest RAM, the
 * in-kernel irqchip and cfg->ncpus vCPUs with their CPUID.  On success
 * stores the VM in @out.  Returns 0, or a negative errno with a message for
 * the user in @why (@whylen bytes): -ENOENT/-EACCES/-ENODEV when /dev/kvm
 * is missing or unusable, -ENOTSUP for a KVM without a needed capability,
 * -EINVAL for a configuration the host or csan-vmm cannot run, -ENOMEM.
 */
int vm_create(const struct vm_config *cfg, struct vm **out, char *why, size_t whylen);

/*
 * vm_open_kvm - open /dev/kvm and check its API version.  Returns the
 * file descriptor, or a negative errno with what the user can do in @why:
 * -ENOENT/-EACCES/-EPERM when /dev/kvm is missing or not ours, -ENOTSUP
 * for another API version.
 */
int vm_open_kvm(char *why, size_t whylen);

/*
 * vm_setup_arch - the x86 odds and ends a new VM @vm_fd needs before its
 * vCPUs exist: the real-mode TSS and identity map that VMX without
 * unrestricted guest needs, and exits on emulation failures, where @kvm_fd
 * has them.  Returns 0, or the failing ioctl's -errno with its name in @why.
 */
int vm_setup_arch(int kvm_fd, int vm_fd, char *why, size_t whylen);

/* vm_ram, vm_ram_size - the host mapping of guest-physical [0, size). */
uint8_t *vm_ram(struct vm *vm);
uint64_t vm_ram_size(const struct vm *vm);

/*
 * vm_gpa_to_hva - the host address of guest-physical [@gpa, @gpa + @len),
 * or NULL unless the whole range lies in guest RAM.  Overflow-safe: the
 * subtraction cannot wrap because gpa <= ram_size is checked first.  Every
 * address the guest supplies goes through here.
 */
static inline void *vm_gpa_to_hva(struct vm *vm, uint64_t gpa, uint64_t len)
{
	if (gpa > vm->ram_size || len > vm->ram_size - gpa)
		return NULL;
	return vm->ram + gpa;
}

/*
 * vm_boot_setup (boot.c) - write the PVH start info with @cmdline into
 * [0x1000, 0x8000), the ACPI tables at 0xe0000, and put the boot vCPU at
 * @pvh_entry in flat 32-bit protected mode.  Call after the image is
 * loaded.  Returns 0, or -E2BIG (command line too long), -EINVAL (entry
 * outside RAM) or an ioctl's -errno, with a message in @why.
 */
int vm_boot_setup(struct vm *vm, uint64_t pvh_entry, const char *cmdline, char *why, size_t whylen);

/*
 * vm_run - run the guest on one thread per vCPU until it exits, faults,
 * cfg.timeout_s passes or SIGINT/SIGTERM arrives; then stop and join every
 * vCPU thread and fill @out.  What went wrong has been printed on stderr.
 * SIGINT and SIGTERM are blocked in the caller and the vCPU threads for the
 * run and read through a signalfd; other threads the caller has started
 * must block them too.  SIGUSR1 (VCPU_KICK_SIGNAL) belongs to the VMM.
 * Call once per VM.  Returns 0 (the outcome is in @out), or a negative
 * errno when the run could not be started, after printing why.
 */
int vm_run(struct vm *vm, struct vm_outcome *out);

/* vm_destroy - release everything vm_create made; @vm may be partial. */
void vm_destroy(struct vm *vm);

/*
 * vm_end - record how the run ends and tell every vCPU to stop; callable
 * from any thread.  The first call decides the outcome.  Returns true for
 * that first call, false when the run was already ending.
 */
bool vm_end(struct vm *vm, enum vm_end end, int guest_status, int signal);

/* vm_stopping - whether the vCPU threads have been told to stop. */
static inline bool vm_stopping(struct vm *vm)
{
	return __atomic_load_n(&vm->stop, __ATOMIC_SEQ_CST) != 0;
}

/* vcpu_run_on_all() and the other vCPU helpers belong to this interface. */
#include "vmm/kvm/vcpu.h"

#endif /* CSAN_VMM_VM_H */
