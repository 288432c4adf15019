/* kvm_api.c: the KVM objects every VM is made of: /dev/kvm, a VM, its RAM, a vCPU. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/kvm.h>

#include "vmm/base/log.h"
#include "vmm/kvm/kvm_api.h"

#define KVM_DEVICE "/dev/kvm"

/*
 * Where KVM keeps the real-mode TSS and identity page table that VMX
 * without unrestricted guest needs for the APs' real-mode start; the
 * addresses QEMU uses, above any guest RAM (CSAN_RAM_LIMIT).
 */
#define VM_TSS_GPA	    0xfffbd000ull
#define VM_IDENTITY_MAP_GPA 0xfffbc000ull

int kvm_open_dev(char *why, size_t whylen)
{
	int fd, api, e;

	fd = open(KVM_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		if (e == ENOENT)
			why_set(why, whylen,
				KVM_DEVICE
				" does not exist: build the host kernel "
				"with CONFIG_KVM and load kvm-intel or kvm-amd (modprobe kvm-intel "
				"/ modprobe kvm-amd), with virtualization enabled in the firmware");
		else if (e == EACCES || e == EPERM)
			why_set(why, whylen,
				"no permission to open " KVM_DEVICE ": add your user "
				"to the group that owns it (usually 'kvm') or check its "
				"permissions "
				"with ls -l " KVM_DEVICE);
		else
			why_set(why, whylen,
				"cannot open " KVM_DEVICE ": %s (is kvm-intel or "
				"kvm-amd loaded?)",
				strerror(e));
		return -e;
	}
	api = ioctl(fd, KVM_GET_API_VERSION, 0);
	if (api != KVM_API_VERSION) {
		why_set(why, whylen, KVM_DEVICE " speaks KVM API version %d; csan-vmm needs %d",
			api, KVM_API_VERSION);
		close(fd);
		return -ENOTSUP;
	}
	return fd;
}

/*
 * The x86 odds and ends a new VM needs before its vCPUs exist: the
 * real-mode TSS and identity map of VMX without unrestricted guest, and
 * exits on emulation failures where KVM has them.
 */
static int setup_arch(int kvm_fd, int vm_fd, char *why, size_t whylen)
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

int kvm_create_vm(int kvm_fd, char *why, size_t whylen)
{
	int fd, r;

	do
		fd = ioctl(kvm_fd, KVM_CREATE_VM, 0);
	while (fd < 0 && errno == EINTR);
	if (fd < 0)
		return why_errno(why, whylen, errno, "KVM_CREATE_VM failed");
	r = setup_arch(kvm_fd, fd, why, whylen);
	if (r) {
		close(fd);
		return r;
	}
	return fd;
}

int kvm_add_ram(int vm_fd, uint64_t bytes, bool lazy, uint8_t **out, char *why, size_t whylen)
{
	struct kvm_userspace_memory_region region = {
		.slot = 0,
		.guest_phys_addr = 0,
		.memory_size = bytes,
	};
	int flags = MAP_PRIVATE | MAP_ANONYMOUS | (lazy ? MAP_NORESERVE : 0);
	void *p;
	int r;

	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, flags, -1, 0);
	if (p == MAP_FAILED) {
		int e = errno;

		if (bytes >= 1 << 20)
			why_set(why, whylen, "cannot allocate %" PRIu64 " MiB of guest RAM: %s",
				bytes >> 20, strerror(e));
		else
			why_set(why, whylen, "cannot allocate %" PRIu64 " KiB of guest RAM: %s",
				bytes >> 10, strerror(e));
		return -e;
	}
	region.userspace_addr = (uintptr_t)p;
	if (ioctl(vm_fd, KVM_SET_USER_MEMORY_REGION, &region) < 0) {
		r = why_errno(why, whylen, errno, "KVM_SET_USER_MEMORY_REGION failed");
		munmap(p, bytes);
		return r;
	}
	*out = p;
	return 0;
}

int kvm_run_size(int kvm_fd, char *why, size_t whylen)
{
	int size = ioctl(kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);

	if (size < 0)
		return why_errno(why, whylen, errno, "KVM_GET_VCPU_MMAP_SIZE failed");
	if (size < (int)sizeof(struct kvm_run)) {
		why_set(why, whylen, "KVM_GET_VCPU_MMAP_SIZE answered %d bytes, less than kvm_run",
			size);
		return -EINVAL;
	}
	return size;
}

int kvm_create_vcpu(int vm_fd, unsigned id, size_t run_size, struct kvm_run **run, char *why,
		    size_t whylen)
{
	void *p;
	int fd, r;

	fd = ioctl(vm_fd, KVM_CREATE_VCPU, (unsigned long)id);
	if (fd < 0)
		return why_errno(why, whylen, errno, "KVM_CREATE_VCPU for vCPU %u failed", id);
	p = mmap(NULL, run_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		r = why_errno(why, whylen, errno, "cannot map vCPU %u's kvm_run area", id);
		close(fd);
		return r;
	}
	*run = p;
	return fd;
}
