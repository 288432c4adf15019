/* fake-vm.c: a struct vm without KVM, for fuzzing what the guest sends. */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "fake-vm.h"
#include "vmm/dev/serial.h"
#include "vmm/guest/csan/csan_profile.h"
#include "vmm/guest/csan/csan_state.h"
#include "vmm/hwwatch/hw_watch.h"
#include "vmm/dev/hypercall.h"
#include "watch/report_log.h"
#include "watch/sym.h"

static void die(const char *what)
{
	fprintf(stderr, "fake-vm: %s\n", what);
	abort();
}

void fake_vm_new(struct fake_vm *f, unsigned ncpus, uint64_t ram_size, const char *sym_elf)
{
	struct report_log_opts lo = { 0 };
	struct vm *vm;
	char why[256];
	unsigned i;

	memset(f, 0, sizeof(*f));
	vm = vm_new(&(struct vm_config){ .ncpus = ncpus, .mem_bytes = ram_size });
	if (!vm)
		die("out of memory");
	vm->ram = calloc(1, ram_size);
	vm->vcpus = calloc(ncpus, sizeof(*vm->vcpus));
	if (!vm->ram || !vm->vcpus)
		die("out of memory");
	vm->ram_size = ram_size;
	for (i = 0; i < ncpus; i++) {
		struct vcpu *v = calloc(1, sizeof(*v));

		if (!v)
			die("out of memory");
		v->vm = vm;
		v->id = i;
		v->fd = -1;
		vm->vcpus[i] = v;
	}
	/* hw mode's availability is the fuzz input's (hw_unavailable), never a real probe. */
	vm->hw_probed = true;
	if (serial_attach(vm, open("/dev/null", O_WRONLY | O_CLOEXEC), why, sizeof(why)) ||
	    hw_watch_attach(vm, why, sizeof(why)))
		die(why);
	if (sym_elf && sym_open(sym_elf, &f->sym, why, sizeof(why)))
		die(why);
	lo.sym = f->sym;
	lo.env.guest = sym_elf ? sym_elf : "(none)";
	lo.env.mode = "soft";
	lo.text = fopen("/dev/null", "w");
	lo.json = fopen("/dev/null", "w");
	lo.interval_ms = REPORT_LOG_DEFAULT_INTERVAL_MS;
	if (!lo.text || !lo.json || report_log_new(&lo, &vm->reports))
		die("report_log_new failed");
	/*
	 * The csan guest's hypercalls, as build_vm attaches them to an image
	 * with the ABI note.  No view for the engine (no target makes a debug
	 * exit) and no watch-mode hook: the targets read the mode from the VM.
	 */
	if (csan_hypercalls_attach(vm, why, sizeof(why)))
		die(why);
	f->vm = vm;
}

void fake_vm_reset(struct fake_vm *f)
{
	struct vm *vm = f->vm;
	bool was_ended = vm->ended;
	uint64_t drained;

	vm->ended = false;
	vm->stop = 0;
	csan_state(vm)->control = NULL;
	csan_state(vm)->control_ncounters = 0;
	csan_state(vm)->control_size = 0;
	vm->watch_hw = 0;
	/*
	 * Only an ended run wrote the eventfd: drain it then, and spare the
	 * other inputs a system call (the hypercall target runs thousands a
	 * second).  Non-blocking: reading an unwritten one just fails.
	 */
	if (was_ended && read(vm->end_fd, &drained, sizeof(drained)) < 0)
		drained = 0;
	memset(vm->ram, 0, vm->ram_size);
}
