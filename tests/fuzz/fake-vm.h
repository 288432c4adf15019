/* fake-vm.h: a struct vm without KVM, for fuzzing what the guest sends. */
#ifndef CSAN_FUZZ_FAKE_VM_H
#define CSAN_FUZZ_FAKE_VM_H

#include <stddef.h>
#include <stdint.h>

#include "vmm/kvm/vm.h"

/*
 * A VM whose guest RAM is an ordinary buffer and whose vCPUs have no KVM
 * file (fd -1) and no thread: hypercall handlers run on the caller's
 * thread as they would on a vCPU's, and the few that need KVM (debug
 * registers, address translation) see their ioctl fail with EBADF, which
 * is a path worth fuzzing too.  Console output goes to /dev/null.
 */
struct fake_vm {
	struct vm *vm;
	struct sym *sym;
};

/*
 * fake_vm_new - a fake VM with @ncpus vCPUs and @ram_size bytes of RAM,
 * a report pipeline (symbolizing against @sym_elf when not NULL) and a
 * hardware-watch engine.  Aborts on failure: a fuzz target cannot run
 * without it.
 */
void fake_vm_new(struct fake_vm *f, unsigned ncpus, uint64_t ram_size, const char *sym_elf);

/* fake_vm_reset - a fresh run: not ended, nothing attached, RAM zeroed. */
void fake_vm_reset(struct fake_vm *f);

#endif /* CSAN_FUZZ_FAKE_VM_H */
