/* linux_guest.c: the Linux guest profile: a plain PVH kernel on a small PC. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include <linux/kvm.h>

#include "vmm/dev/serial.h"
#include "vmm/base/log.h"
#include "vmm/dev/acpi.h"
#include "vmm/dev/cmos.h"
#include "vmm/console/console_ring.h"
#include "vmm/guest/linux/linux_guest.h"
#include "vmm/guest/linux/linux_watch.h"
#include "vmm/dev/pc_ports.h"
#include "vmm/guest/profile.h"
#include "vmm/kvm/vcpu.h"
#include "vmm/kvm/vm.h"
#include "watch/ktap.h"
#include "watch/linux_report.h"
#include "watch/report.h"
#include "watch/report_log.h"
#include "watch/sym.h"

/* The 8259s' pins and the I/O APIC's, as KVM's in-kernel irqchip has them. */
#define PIC_IRQS	16
#define PIC_CASCADE_IRQ 2
#define IOAPIC_PINS	24
#define GSI_ROUTES_MAX	(PIC_IRQS + IOAPIC_PINS)

/* What every KCSAN title begins with (kernel/kcsan/report.c). */
#define KCSAN_TITLE_LEAD "BUG: KCSAN: "

struct linux_state {
	struct linux_state_head head; /* first: linux_guest_watch() reads it */
	struct cmos cmos;
	struct pc_ports ports;
	/* Under the console lock (console_line), read after the run. */
	struct ktap ktap;
	struct linux_report_parser *kcsan; /* Linux's own KCSAN reports */
	unsigned kcsan_lost;		   /* blocks that could not be records */
	unsigned kcsan_unsymbolized;	   /* blocks counted as they are: no vmlinux */
	unsigned kcsan_taken;		   /* blocks csan-vmm prints itself: the notes' #N */
	bool holding;			   /* the console holds lines of a block for us */
	bool panicked;
	bool restarting; /* Linux said "reboot: Restarting system" */
	char panic[SERIAL_LINE_MAX + 1];
	/* The kernel's refusal of the initramfs, repeated at the end; "" if none. */
	char initramfs_failed[SERIAL_LINE_MAX + 1];
	/* The first reboot or power-off: under vm->end_lock's first vm_end. */
	const char *ended_how;
	enum power_event ended_ev;
};

static struct linux_state *state(struct vm *vm)
{
	return vm->profile_state;
}

static char *linux_cmdline(const char *scenario, uint64_t seed, const char *a, bool kaslr)
{
	bool console = a && strstr(a, "console=");
	const char *ours = console ? (kaslr ? "" : LINUX_NOKASLR)
				   : (kaslr ? LINUX_CONSOLE : LINUX_DEFAULT_CMDLINE);
	char *s = NULL;

	(void)scenario; /* Linux has none: guest_run refuses --scenario for it */
	(void)seed;	/* nor a seed: KCSAN's randomness is its own */
	/*
	 * A console= of the user's own replaces ours.  nokaslr unless
	 * --kaslr (sampling only): hw mode plants its traps at the vmlinux's
	 * addresses, and soft mode's report frames are read against them.
	 */
	if (asprintf(&s, "%s%s%s", ours, ours[0] && a ? " " : "", a ? a : "") < 0)
		return NULL;
	return s;
}

/*
 * The reboot or power-off Linux asked for.  After a panic the kernel
 * reboots by itself (panic=N): the run still ends as the panic it was.
 */
static int linux_power(struct vcpu *vcpu, enum power_event ev, const char *how)
{
	struct vm *vm = vcpu->vm;
	struct linux_state *ls = state(vm);
	bool panicked = __atomic_load_n(&ls->panicked, __ATOMIC_ACQUIRE);

	console_flush_line(vm->serial, vcpu->id);
	pthread_mutex_lock(&vm->end_lock);
	if (!vm->ended) {
		ls->ended_how = how;
		ls->ended_ev = ev;
	}
	pthread_mutex_unlock(&vm->end_lock);
	vm_end(vm, panicked ? VM_END_FAULT : VM_END_EXIT, 0, 0);
	return VCPU_STOP;
}

/*
 * A triple fault is how Linux reboots with reboot=t, and its last resort
 * after a panic; any other is a crash, and ends the run as a fault with
 * the vCPU's registers (fault.c).
 */
static int linux_exit(struct vcpu *vcpu)
{
	struct linux_state *ls = state(vcpu->vm);
	struct kvm_run *run = vcpu->run;

	if (run->exit_reason == KVM_EXIT_SHUTDOWN) {
		if (!__atomic_load_n(&ls->restarting, __ATOMIC_ACQUIRE) &&
		    !__atomic_load_n(&ls->panicked, __ATOMIC_ACQUIRE))
			return VCPU_DEFAULT;
		return linux_power(vcpu, POWER_RESET, "triple fault");
	}
	if (run->exit_reason != KVM_EXIT_SYSTEM_EVENT)
		return VCPU_DEFAULT;
	switch (run->system_event.type) {
	case KVM_SYSTEM_EVENT_SHUTDOWN: return linux_power(vcpu, POWER_OFF, "KVM system event");
	case KVM_SYSTEM_EVENT_RESET: return linux_power(vcpu, POWER_RESET, "KVM system event");
	default: return VCPU_DEFAULT;
	}
}

/*
 * A KCSAN report Linux printed, into the report log: symbolized against
 * the vmlinux, counted, deduplicated, in the JSON.  One that cannot be a
 * record (no frame of a side in the vmlinux) is said and counted as lost.
 * Returns true when the report log prints it (now, or in hw mode once the
 * host's watch of the same race is done), with the note that takes the
 * place of Linux's block on the console in @note (@notelen bytes; may be
 * NULL).
 */
static bool kcsan_submit(struct vm *vm, struct linux_state *ls, struct linux_report *lr, char *note,
			 size_t notelen)
{
	struct linux_watch *lw = linux_guest_watch(vm);
	struct csan_hc_report rec;
	bool taken = false, printed;
	char why[256];
	int rc;

	/* No vmlinux: the kernel's own report on the console is all there is; count it. */
	if (!vm->sym) {
		ls->kcsan_unsymbolized++;
		linux_report_free(lr);
		return false;
	}
	rc = linux_report_to_record(lr, vm->sym, &rec, NULL, why, sizeof(why));

	/* In hw mode the host's watch of the same race may make it one report. */
	if (!rc && lw && linux_watch_console_report(vm, lw, &rec))
		taken = true;
	else if (!rc)
		rc = report_log_submit(vm->reports, &rec, why, sizeof(why));

	if (rc < 0) {
		ls->kcsan_lost++;
		log_error("a KCSAN report on the Linux console could not be read: %s",
			  rc == -ENOMEM ? "out of memory" : why);
	}
	/* 0 from the log would be a repeat counted only: a Linux log prints every one. */
	printed = taken || rc == 1;
	if (printed) {
		ls->kcsan_taken++;
		if (note)
			snprintf(note, notelen, LINUX_REPORT_NOTE, ls->kcsan_taken,
				 lr->title + (strncmp(lr->title, KCSAN_TITLE_LEAD,
						      sizeof(KCSAN_TITLE_LEAD) - 1)
						      ? 0
						      : sizeof(KCSAN_TITLE_LEAD) - 1));
	}
	linux_report_free(lr);
	return printed;
}

/*
 * What the console does with a line, by what it was to the KCSAN parser
 * (@rc, and its role): a report's block is held from its opening rule,
 * and dropped for @note once the report log printed the report; anything
 * that turns out not to be one is shown as it was.  Other CPUs' lines
 * inside a block are held only to keep their place: they are shown.
 */
static enum console_verdict kcsan_verdict(struct vm *vm, struct linux_state *ls, int rc,
					  struct linux_report *lr, char *note, size_t notelen)
{
	unsigned role = linux_report_line_role(ls->kcsan);
	enum console_verdict v;
	bool printed;

	if (rc == LINUX_LINE_DONE) {
		printed = kcsan_submit(vm, ls, lr, note, notelen);
		if (role & LINUX_ROLE_TITLE) /* the last block lost its closing rule */
			v = printed ? CONSOLE_DROP_THEN_HOLD : CONSOLE_SHOW_THEN_HOLD;
		else
			v = printed ? CONSOLE_DROP : CONSOLE_SHOW;
	} else if (!vm->sym) {
		/* No vmlinux: Linux's block is the only report there is. */
		v = CONSOLE_SHOW;
	} else if (rc == LINUX_LINE_INSIDE) {
		v = role & LINUX_ROLE_FOREIGN ? CONSOLE_HOLD_KEEP : CONSOLE_HOLD;
	} else if (rc == LINUX_LINE_OUTSIDE && (role & LINUX_ROLE_RULE)) {
		/* A rule may open a report: an earlier one that did not is shown. */
		v = ls->holding ? CONSOLE_SHOW_THEN_HOLD : CONSOLE_HOLD;
	} else if (rc == LINUX_LINE_OUTSIDE && ls->holding && (role & LINUX_ROLE_AWAITING)) {
		v = CONSOLE_HOLD_KEEP; /* between a rule and the title it may still get */
	} else {
		v = CONSOLE_SHOW;
	}
	ls->holding = v == CONSOLE_HOLD || v == CONSOLE_HOLD_KEEP || v == CONSOLE_SHOW_THEN_HOLD ||
		      v == CONSOLE_DROP_THEN_HOLD;
	return v;
}

enum console_verdict linux_console_line(struct vm *vm, const char *line, size_t len, char *note,
					size_t notelen)
{
	enum console_verdict v = CONSOLE_SHOW;
	struct linux_state *ls = state(vm);
	struct linux_report *lr;
	const char *p;
	int rc;

	while (len && (line[len - 1] == '\r' || line[len - 1] == '\n'))
		len--;
	if (ls->kcsan) {
		rc = linux_report_feed(ls->kcsan, line, len, &lr);
		v = kcsan_verdict(vm, ls, rc, lr, note, notelen);
	}
	ktap_line(&ls->ktap, line, len);
	p = memmem(line, len, LINUX_PANIC_PREFIX, sizeof(LINUX_PANIC_PREFIX) - 1);
	if (p && !ls->panicked) {
		size_t n = len - (size_t)(p - line);

		memcpy(ls->panic, p, n);
		ls->panic[n] = '\0';
		__atomic_store_n(&ls->panicked, true, __ATOMIC_RELEASE);
	}
	/* Only the console's thread writes it, and only the summary reads it, after the run. */
	p = memmem(line, len, LINUX_INITRAMFS_FAILED, sizeof(LINUX_INITRAMFS_FAILED) - 1);
	if (p && !ls->initramfs_failed[0]) {
		size_t n = len - (size_t)(p - line);

		memcpy(ls->initramfs_failed, p, n);
		ls->initramfs_failed[n] = '\0';
	}
	if (memmem(line, len, LINUX_RESTART, sizeof(LINUX_RESTART) - 1))
		__atomic_store_n(&ls->restarting, true, __ATOMIC_RELEASE);
	/* The stack and "end Kernel panic" follow the first line: end after them. */
	if (ls->panicked && memmem(line, len, LINUX_PANIC_END, sizeof(LINUX_PANIC_END) - 1))
		vm_end(vm, VM_END_FAULT, 0, 0);
	return v;
}

/*
 * GSI routing as a PC (and QEMU) has it: ISA IRQs on both 8259s and the
 * I/O APIC, except that the PIT's IRQ 0 arrives on I/O APIC pin 2, which
 * the MADT's interrupt source override tells Linux (acpi.c).  KVM's
 * default puts GSI 0 on pin 0, where Linux would then not find the timer
 * ("IO-APIC + timer doesn't work!").
 */
static int route_pc_irqs(struct vm *vm, char *why, size_t whylen)
{
	struct kvm_irq_routing *r;
	unsigned i, n = 0;
	int rc = 0;

	r = calloc(1, sizeof(*r) + GSI_ROUTES_MAX * sizeof(r->entries[0]));
	if (!r) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < PIC_IRQS; i++) {
		if (i == PIC_CASCADE_IRQ)
			continue;
		r->entries[n].gsi = i;
		r->entries[n].type = KVM_IRQ_ROUTING_IRQCHIP;
		r->entries[n].u.irqchip.irqchip =
			i < 8 ? KVM_IRQCHIP_PIC_MASTER : KVM_IRQCHIP_PIC_SLAVE;
		r->entries[n].u.irqchip.pin = i % 8;
		n++;
	}
	for (i = 0; i < IOAPIC_PINS; i++) {
		if (i == ACPI_PC_TIMER_GSI)
			continue; /* pin 2 is GSI 0's */
		r->entries[n].gsi = i;
		r->entries[n].type = KVM_IRQ_ROUTING_IRQCHIP;
		r->entries[n].u.irqchip.irqchip = KVM_IRQCHIP_IOAPIC;
		r->entries[n].u.irqchip.pin = i ? i : ACPI_PC_TIMER_GSI;
		n++;
	}
	r->nr = n;
	if (ioctl(vm->vm_fd, KVM_SET_GSI_ROUTING, r) < 0) {
		rc = why_errno(why, whylen, errno, "KVM_SET_GSI_ROUTING failed");
	}
	free(r);
	return rc;
}

/* COM1's interrupt line, through KVM's 8259s and I/O APIC (route_pc_irqs). */
static void serial_irq(void *ctx, bool level)
{
	struct vm *vm = ctx;
	struct kvm_irq_level irq = { .irq = SERIAL_IRQ, .level = level };

	/* Cannot fail for a GSI the routing has; nothing to do if it did. */
	(void)ioctl(vm->vm_fd, KVM_IRQ_LINE, &irq);
}

int linux_state_attach(struct vm *vm, char *why, size_t whylen)
{
	struct linux_state *ls = calloc(1, sizeof(*ls));

	if (!ls || linux_report_parser_new(&ls->kcsan)) {
		free(ls);
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	cmos_init(&ls->cmos);
	ktap_init(&ls->ktap);
	ls->ports.power = linux_power;
	vm->profile_state = ls;
	vm->pc_platform = true;
	return 0;
}

static int linux_setup(struct vm *vm, char *why, size_t whylen)
{
	/* The in-kernel PIT, with port 0x61 answered too: Linux calibrates with channel 2. */
	struct kvm_pit_config pit = { .flags = KVM_PIT_SPEAKER_DUMMY };
	struct linux_state *ls;
	int rc = linux_state_attach(vm, why, whylen);

	if (rc)
		return rc;
	ls = state(vm);
	if (ioctl(vm->vm_fd, KVM_CREATE_PIT2, &pit) < 0) {
		int e = errno;

		why_set(why, whylen, "KVM_CREATE_PIT2 failed: %s (Linux needs the PIT)",
			strerror(e));
		return -e;
	}
	rc = route_pc_irqs(vm, why, whylen);
	if (!rc)
		rc = console_ring_setup(vm, why, whylen);
	if (!rc)
		serial_set_irq(vm->serial, serial_irq, vm);
	if (!rc)
		rc = pio_register(&vm->pio, CMOS_PORT_INDEX, CMOS_NPORTS, "RTC", cmos_io, &ls->cmos,
				  why, whylen);
	if (!rc)
		rc = pio_register(&vm->pio, I8042_PORT_DATA, 1, "i8042", i8042_io, &ls->ports, why,
				  whylen);
	if (!rc)
		rc = pio_register(&vm->pio, I8042_PORT_COMMAND, 1, "i8042", i8042_io, &ls->ports,
				  why, whylen);
	if (!rc)
		rc = pio_register(&vm->pio, PCI_CONF1_PORT, PCI_CONF1_NPORTS,
				  "PCI configuration space", pci_conf1_io, &ls->ports, why, whylen);
	if (!rc)
		rc = pio_register(&vm->pio, ACPI_PM_PORT, ACPI_PM_NPORTS, "ACPI PM", acpi_pm_io,
				  &ls->ports, why, whylen);
	return rc;
}

/* KCSAN's word for a scoped access, and every block it printed in the JSON. */
static void linux_report_log_opts(struct report_log_opts *lo)
{
	lo->env.scoped_word = "reordered";
	lo->sym_flags = REPORT_SYM_FOREIGN_KERNEL;
	/* KCSAN already prints a race at most once per KCSAN_REPORT_ONCE_IN_MS. */
	lo->interval_ms = 0;
}

/*
 * Kbuild names each source file by its path under the source tree, with
 * O= builds by the tree's absolute path; the compilation directory is the
 * build directory, a sibling of the tree there, so the DWARF's votes
 * (srcpath.h) would settle on their common parent and print
 * "linux-6.1/kernel/kcsan/core.c".  The tree is where init/main.c is.
 */
static void linux_source_root(struct sym *sym)
{
	sym_set_source_anchor(sym, "start_kernel", "/init/main.c");
}

static void linux_console_end(struct vm *vm)
{
	struct linux_state *ls = state(vm);
	struct linux_report *lr;

	/* Its block went to the terminal as it was (console_flush): no note. */
	if (ls && ls->kcsan && linux_report_flush(ls->kcsan, &lr))
		kcsan_submit(vm, ls, lr, NULL, 0);
	if (ls)
		linux_watch_flush(vm, ls->head.watch);
}

/* KUnit's counts off the console, and a panic the run's end may not show. */
static void linux_summarize(struct vm *vm, struct guest_findings *f, FILE *out)
{
	struct linux_state *ls = state(vm);
	struct ktap_totals t;

	if (!ls)
		return;
	ktap_print(&ls->ktap, out);
	ktap_totals(&ls->ktap, &t);
	f->kunit_suites = t.suites;
	f->kunit_passed = t.passed;
	f->kunit_failed = t.failed;
	f->kunit_skipped = t.skipped;
	f->kunit_incomplete = t.incomplete;
	linux_watch_print_stats(ls->head.watch, out);
	if (ls->kcsan_lost)
		fprintf(out,
			LOG_PREFIX
			"%u KCSAN report%s on the console could not be read (said above)\n",
			ls->kcsan_lost, ls->kcsan_lost == 1 ? "" : "s");
	/* Races the report log could not hold are races all the same. */
	f->races_unlogged = ls->kcsan_unsymbolized;
	if (ls->kcsan_unsymbolized)
		fprintf(out,
			LOG_PREFIX "%u KCSAN report%s on the console, left as Linux printed them "
				   "(no vmlinux: --vmlinux=PATH symbolizes them)\n",
			ls->kcsan_unsymbolized, ls->kcsan_unsymbolized == 1 ? "" : "s");
	/* Said before the panic it usually causes (no init, no root). */
	if (ls->initramfs_failed[0])
		fprintf(out, LOG_PREFIX "Linux could not unpack the initramfs: %s\n",
			ls->initramfs_failed);
	if (ls->panicked) {
		fprintf(out, LOG_PREFIX "Linux panicked: %s\n", ls->panic);
		f->crashed = true;
		return;
	}
	if (ls->ended_how)
		fprintf(out, LOG_PREFIX "Linux %s (%s)\n",
			ls->ended_ev == POWER_OFF ? "powered off" : "rebooted", ls->ended_how);
}

static void linux_teardown(struct vm *vm)
{
	struct linux_state *ls = state(vm);

	if (!ls)
		return;
	linux_watch_free(ls->head.watch);
	cmos_destroy(&ls->cmos);
	linux_report_parser_free(ls->kcsan);
	free(ls);
	vm->profile_state = NULL;
}

/*
 * Hardware-watchpoint mode follows KCSAN's watchpoints through traps
 * planted in the kernel's text before it boots (linux_watch.c): a run
 * started in soft mode has none, and cannot switch later.
 */
static int linux_watch_hw(struct vm *vm, char *why, size_t whylen)
{
	struct linux_state *ls = state(vm);
	struct linux_watch *lw;
	int rc;

	if (!ls || ls->head.watch)
		return 0;
	if (vm->ncpus && vm->vcpus[0]->started) {
		snprintf(why, whylen,
			 "a Linux guest switches to hw mode only if it started in it (the traps "
			 "that follow KCSAN are planted before boot): run with --watch=hw, then "
			 "switch between soft and hw as you like");
		return -ENOTSUP;
	}
	rc = linux_watch_start(vm, &lw, why, whylen);
	if (!rc)
		__atomic_store_n(&ls->head.watch, lw, __ATOMIC_RELEASE);
	return rc;
}

static int linux_tick(struct vm *vm)
{
	return linux_watch_tick(vm, linux_guest_watch(vm));
}

const struct guest_profile linux_profile = {
	.name = "linux",
	.default_mem_bytes = LINUX_DEFAULT_MEMORY,
	.unfit_for_pvm = "a Linux guest does not run on this KVM (kvm_pvm emulates kernel code and "
			 "stops at XRSTOR, CLAC, POPCNT and others)",
	.takes_virtio_mmio = true, /* CONFIG_VIRTIO_MMIO_CMDLINE_DEVICES */
	.takes_kaslr = true,	   /* CONFIG_RANDOMIZE_BASE, booted from a bzImage */
	.cmdline = linux_cmdline,
	.report_log_opts = linux_report_log_opts,
	.source_root = linux_source_root,
	.setup = linux_setup,
	.console_line = linux_console_line,
	.exit = linux_exit,
	.exit_reasons = { KVM_EXIT_SHUTDOWN, KVM_EXIT_SYSTEM_EVENT },
	.watch_hw = linux_watch_hw,
	.tick = linux_tick,
	.console_end = linux_console_end,
	.summarize = linux_summarize,
	.teardown = linux_teardown,
};
