/* fake-vm.c: a struct vm without KVM, for fuzzing what the guest sends. */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "fake-vm.h"
#include "vmm/guest/csan/hc_attach.h"
#include "vmm/guest/csan/hc_hw.h"
#include "vmm/guest/csan/hc_report.h"
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
	vm = calloc(1, sizeof(*vm));
	if (!vm)
		die("out of memory");
	vm->ram = calloc(1, ram_size);
	vm->vcpus = calloc(ncpus, sizeof(*vm->vcpus));
	if (!vm->ram || !vm->vcpus)
		die("out of memory");
	vm->ram_size = ram_size;
	vm->ncpus = ncpus;
	vm->kvm_fd = vm->vm_fd = -1;
	for (i = 0; i < ncpus; i++) {
		struct vcpu *v = calloc(1, sizeof(*v));

		if (!v)
			die("out of memory");
		v->vm = vm;
		v->id = i;
		v->fd = -1;
		vm->vcpus[i] = v;
	}
	pthread_mutex_init(&vm->end_lock, NULL);
	pthread_mutex_init(&vm->task_lock, NULL);
	/* hw mode's availability is the fuzz input's (hw_unavailable), never a real probe. */
	pthread_mutex_init(&vm->hw_probe_lock, NULL);
	vm->hw_probed = true;
	pthread_cond_init(&vm->task_cond, NULL);
	vm->end_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (vm->end_fd < 0)
		die("eventfd failed");
	if (serial_init(&vm->serial, ncpus, open("/dev/null", O_WRONLY | O_CLOEXEC)))
		die("serial_init failed");
	vm->hw = hw_engine_new(ncpus);
	if (!vm->hw)
		die("hw_engine_new failed");
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
	if (hc_report_register() || hc_attach_register() || hc_hw_register())
		die("hypercall registration failed");
	f->vm = vm;
}

void fake_vm_reset(struct fake_vm *f)
{
	struct vm *vm = f->vm;
	bool was_ended = vm->ended;
	uint64_t drained;

	vm->ended = false;
	vm->stop = 0;
	vm->control = NULL;
	vm->control_ncounters = 0;
	vm->control_size = 0;
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
