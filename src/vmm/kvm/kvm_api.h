/* kvm_api.h: the KVM objects every VM is made of: /dev/kvm, a VM, its RAM, a vCPU. */
#ifndef CSAN_VMM_KVM_API_H
#define CSAN_VMM_KVM_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kvm_run;

/*
 * The steps vm.c and the host probes (probe.c) both take, so each is
 * written once.  Each returns what it made, or a negative errno with the
 * failing call and what the user can do in @why.
 */

/*
 * kvm_open_dev - open /dev/kvm and check its API version.  Returns the
 * file descriptor; -ENOENT/-EACCES/-EPERM when /dev/kvm is missing or not
 * ours, -ENOTSUP for another API version.
 */
int kvm_open_dev(char *why, size_t whylen);

/*
 * kvm_create_vm - a new VM of @kvm_fd with the x86 set-up it needs before
 * its vCPUs exist (the real-mode TSS and identity map that VMX without
 * unrestricted guest needs, exits on emulation failures where KVM has
 * them).  Returns the VM's file descriptor.
 */
int kvm_create_vm(int kvm_fd, char *why, size_t whylen);

/*
 * kvm_add_ram - map @bytes of anonymous memory as guest-physical
 * [0, @bytes) of @vm_fd (memory slot 0), committed lazily when @lazy
 * (guests touch little of their RAM).  Stores the mapping in @out.
 * Returns 0; nothing stays mapped on failure.
 */
int kvm_add_ram(int vm_fd, uint64_t bytes, bool lazy, uint8_t **out, char *why, size_t whylen);

/* kvm_run_size - KVM_GET_VCPU_MMAP_SIZE: the bytes of a vCPU's kvm_run mapping. */
int kvm_run_size(int kvm_fd, char *why, size_t whylen);

/*
 * kvm_create_vcpu - vCPU @id of @vm_fd with its kvm_run area (@run_size
 * bytes) mapped into @run.  Returns the vCPU's file descriptor.
 */
int kvm_create_vcpu(int vm_fd, unsigned id, size_t run_size, struct kvm_run **run, char *why,
		    size_t whylen);

#endif /* CSAN_VMM_KVM_API_H */
