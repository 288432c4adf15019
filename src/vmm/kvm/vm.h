/* vm.h: the virtual machine: its state, its life, its run. */
#ifndef CSAN_VMM_VM_H
#define CSAN_VMM_VM_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm/kvm/hooks.h"
#include "vmm/kvm/bus.h"

struct vcpu;
struct sym;
struct unwinder;
struct report_log;
struct hw_engine;
struct sampler;
struct elf_guest;
struct serial;
struct hc_table;

struct vm_config {
	unsigned ncpus;
	uint64_t mem_bytes;
	unsigned timeout_s; /* 0 = none */
	bool sandbox;	    /* vCPU threads enter the seccomp sandbox (sandbox.c) */
};

enum vm_end {
	VM_END_EXIT,	   /* the guest said it is done; guest_status holds its status */
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
 * The VM.  The fields are shared by the files of kvm/ and read by the
 * rooms above it, as in kvmtool; the rooms above keep their own state
 * behind the opaque pointers at the end, set by their attach functions.
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
	struct bus pio;	       /* the devices' port ranges (bus.c) */
	struct bus mmio;       /* the devices' MMIO ranges (bus.c) */
	struct vm_hooks hooks; /* what the rooms above registered (hooks.c) */
	bool pc_platform;      /* the PC's ACPI extras, for a Linux guest (acpi.c) */

	/* The end of the run: the first vm_end() call wins (end.c). */
	pthread_mutex_t end_lock;
	bool ended;
	struct vm_outcome outcome;
	int end_fd; /* eventfd that wakes vm_run's supervisor */
	int stop;   /* atomic: vCPU threads leave their loops */

	/* vcpu_run_on_all() and vcpu_run_on(): one task in flight at a time (vcpu.c). */
	pthread_mutex_t task_lock;
	pthread_cond_t task_cond;
	bool task_busy;
	unsigned task_left;
	uint64_t rekicks; /* kicks sent again to a vCPU slow to run its task */

	/*
	 * The report pipeline (src/watch), set by run/guest_run.c before
	 * vm_run and owned by it; NULL where absent.  Faults print symbolized
	 * stacks through sym/unw, reports go to reports.
	 */
	struct sym *sym;
	struct unwinder *unw;
	struct report_log *reports;

	/* The loaded kernel image (run/guest_run.c owns it); NULL before the load. */
	const struct elf_guest *image;

	/* The console UART (dev/serial.c, serial_attach); NULL before. */
	struct serial *serial;
	/* The hypercall ports' table (dev/hypercall.c, hc_attach_ports); NULL: none. */
	struct hc_table *hc;

	/* The guest profile's own state (guest/), NULL: none. */
	void *profile_state;

	/*
	 * Watch mode (hwwatch/watch_mode.c): watch_hw is the mode asked for
	 * (atomic, 1 = hw).  hw_unavailable says why this host cannot run hw mode,
	 * empty when it can; valid once hw_probed is set.  The caller of
	 * guest_run may know it (--watch=hw, --compare); otherwise the first
	 * switch to hw mode finds it, under hw_probe_lock.  watch_hw_prepare
	 * is the profile's preparation for hw mode (profile.h), NULL: none.
	 */
	int watch_hw;
	/*
	 * --watch=sample (vmm/sample/): set once before the vCPUs run, never
	 * changed; a sampling run is in neither soft nor hw mode.
	 */
	bool watch_sample;
	pthread_mutex_t hw_probe_lock;
	bool hw_probed;
	char hw_unavailable[256];
	int (*watch_hw_prepare)(struct vm *vm, char *why, size_t whylen);
	void (*watch_mode_changed)(struct vm *vm);
	struct hw_engine *hw;	/* the debug-register engine (hwwatch/) */
	struct sampler *sample; /* --watch=sample's state (sample/), NULL: not sampling */
};

/* I/O APIC IDs KVM's I/O APIC can hold (bits 24-27 of its ID register). */
#define VM_IOAPIC_IDS 16

/*
 * vm_ioapic_id - the I/O APIC's ID for @ncpus CPUs: vm_create writes it
 * into KVM's I/O APIC and dev/acpi.c into the MADT, so the two agree.
 * Below 16 CPUs the first ID no CPU has (the CPUs' are 0..ncpus-1); from
 * 16 on every 4-bit ID is a CPU's, and 0 is as good as any: since the
 * xAPIC, I/O APIC IDs are a name space of their own.
 */
static inline unsigned vm_ioapic_id(unsigned ncpus)
{
	return ncpus < VM_IOAPIC_IDS ? ncpus : 0;
}

/*
 * vm_new - a VM with no KVM behind it yet: @cfg, the locks, the end's
 * eventfd and empty hook tables; RAM and vCPUs are vm_create's (or, in
 * tests without /dev/kvm, the caller's, who then clears vm->ram and
 * vm->vcpus before vm_destroy).  Returns NULL when out of memory or
 * descriptors (errno says which).
 */
struct vm *vm_new(const struct vm_config *cfg);

/*
 * vm_create - open /dev/kvm and build a VM for @cfg: guest RAM, the
 * in-kernel irqchip and cfg->ncpus vCPUs with their CPUID.  On success
 * stores the VM in @out.  Returns 0, or a negative errno with a message for
 * the user in @why (@whylen bytes): -ENOENT/-EACCES/-ENODEV when /dev/kvm
 * is missing or unusable, -ENOTSUP for a KVM without a needed capability,
 * -EINVAL for a configuration the host or csan-vmm cannot run, -ENOMEM.
 */
int vm_create(const struct vm_config *cfg, struct vm **out, char *why, size_t whylen);

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
