/* vm.c: the VM's life: its KVM objects, guest RAM, irqchip and vCPUs (the run is run.c). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/kvm.h>

#include "csan/abi.h"
#include "vmm/base/log.h"
#include "vmm/kvm/cpuid.h"
#include "vmm/kvm/kvm_api.h"
#include "vmm/kvm/vm.h"

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

static int kvm_open(struct vm *vm, char *why, size_t whylen)
{
	int fd = kvm_open_dev(why, whylen);

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
			why_set(why, whylen,
				"this host's KVM lacks %s, which csan-vmm needs; "
				"use a Linux 4.11 or newer host kernel",
				vm_required_caps[i].name);
			return -ENOTSUP;
		}
	}
	if (cfg->ncpus == 0 || cfg->ncpus > CSAN_MAX_CPUS) {
		why_set(why, whylen, "--cpus=%u: csan-vmm runs 1 to %d vCPUs", cfg->ncpus,
			CSAN_MAX_CPUS);
		return -EINVAL;
	}
	max_vcpus = ioctl(vm->kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_MAX_VCPUS);
	if (max_vcpus <= 0)
		max_vcpus = ioctl(vm->kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_NR_VCPUS);
	if (max_vcpus <= 0)
		max_vcpus = VM_DEFAULT_MAX_VCPUS;
	if (cfg->ncpus > (unsigned)max_vcpus) {
		why_set(why, whylen,
			"--cpus=%u is more than this host's KVM allows in one VM "
			"(%d); give --cpus=%d or fewer",
			cfg->ncpus, max_vcpus, max_vcpus);
		return -EINVAL;
	}
	if (cfg->mem_bytes <= CSAN_KERNEL_MIN || cfg->mem_bytes > CSAN_RAM_LIMIT ||
	    cfg->mem_bytes % 4096) {
		why_set(why, whylen,
			"--memory=%" PRIu64 " bytes: give a multiple of 4 KiB above "
			"1 MiB and at most %u MiB",
			cfg->mem_bytes, CSAN_RAM_LIMIT >> 20);
		return -EINVAL;
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
		why_set(why, whylen, "out of memory");
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
		why_set(why, whylen, "KVM_GET_SUPPORTED_CPUID failed: %s", strerror(-r));
		return r;
	}
	for (i = 0; i < vm->ncpus && !r; i++)
		r = cpuid_apply(vm->vcpus[i]->fd, supported, i, vm->ncpus, vm->tsc_khz);
	if (r)
		why_set(why, whylen, "KVM_SET_CPUID2 for vCPU %u failed: %s", i - 1, strerror(-r));
	free(supported);
	return r;
}

struct vm *vm_new(const struct vm_config *cfg)
{
	struct vm *vm = calloc(1, sizeof(*vm));

	if (!vm)
		return NULL;
	vm->cfg = *cfg;
	vm->ncpus = cfg->ncpus;
	vm->kvm_fd = vm->vm_fd = vm->end_fd = -1;
	pthread_mutex_init(&vm->end_lock, NULL);
	pthread_mutex_init(&vm->task_lock, NULL);
	pthread_mutex_init(&vm->hw_probe_lock, NULL);
	pthread_cond_init(&vm->task_cond, NULL);
	/* Polled by the supervisor, never read there: non-blocking costs it nothing. */
	vm->end_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (vm->end_fd < 0) {
		int e = errno;

		vm_destroy(vm);
		errno = e;
		return NULL;
	}
	return vm;
}

int vm_create(const struct vm_config *cfg, struct vm **out, char *why, size_t whylen)
{
	struct vm *vm = vm_new(cfg);
	int r;

	if (!vm) {
		int e = errno;

		if (e == ENOMEM)
			why_set(why, whylen, "out of memory");
		else
			why_errno(why, whylen, e, "eventfd failed");
		return -e;
	}

	r = kvm_open(vm, why, whylen);
	if (r)
		goto err;
	r = kvm_check(vm, cfg, why, whylen);
	if (r)
		goto err;
	vm->vm_fd = kvm_create_vm(vm->kvm_fd, why, whylen);
	if (vm->vm_fd < 0) {
		r = vm->vm_fd;
		goto err;
	}
	r = kvm_add_ram(vm->vm_fd, cfg->mem_bytes, true, &vm->ram, why, whylen);
	if (r == -ENOMEM) {
		size_t n = strnlen(why, whylen);

		snprintf(why + n, whylen - n, "; try a smaller --memory");
	}
	if (r)
		goto err;
	vm->ram_size = cfg->mem_bytes;
	if (ioctl(vm->vm_fd, KVM_CREATE_IRQCHIP, 0) < 0) {
		r = why_errno(why, whylen, errno, "KVM_CREATE_IRQCHIP failed");
		goto err;
	}
	r = ioapic_set_id(vm, vm_ioapic_id(cfg->ncpus), why, whylen);
	if (r)
		goto err;
	r = kvm_run_size(vm->kvm_fd, why, whylen);
	if (r < 0)
		goto err;
	vm->run_size = (size_t)r;
	r = vm_create_vcpus(vm, why, whylen);
	if (r)
		goto err;
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
	vm_hooks_call(vm, VM_HOOK_DESTROY, NULL);
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
	pthread_cond_destroy(&vm->task_cond);
	pthread_mutex_destroy(&vm->task_lock);
	pthread_mutex_destroy(&vm->hw_probe_lock);
	pthread_mutex_destroy(&vm->end_lock);
	free(vm);
}
