/* probe.c: what this host's KVM can do for csan-vmm, measured with a tiny guest. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/kvm.h>

#include "vmm/base/log.h"
#include "vmm/kvm/kvm_api.h"
#include "vmm/kvm/probe.h"
#include "vmm/kvm/vm.h"
#include "vmm/kvm/x86.h"
#include "watch/debugreg.h"

/*
 * The probe guest: no ELF, no paging, no irqchip.  Three instructions of
 * 16-bit real mode at 0000:1000, which every KVM runs (PVM emulates real
 * mode, as its APs start in it).  Without an in-kernel LAPIC, HLT leaves
 * KVM_RUN with KVM_EXIT_HLT, which ends every check.  Encodings from the
 * SDM Vol. 2 opcode tables; 0x66 makes the operands 32-bit.
 */
#define PROBE_RAM_SIZE	0x10000
#define PROBE_CODE_GPA	0x1000
#define PROBE_STORE_GPA 0x1006 /* the mov [0x2000], eax */
#define PROBE_HLT_GPA	0x100a /* the instruction after the store */
#define PROBE_DATA_GPA	0x2000
#define PROBE_DATA_LEN	4
#define PROBE_VALUE	0x12345678u
#define PROBE_STACK_GPA 0x3000
#define PROBE_MAX_EXITS 16 /* three instructions need far fewer exits */

/* Said with every "unavailable". */
#define PROBE_WHAT_TO_DO                                                                           \
	"what to do: run on a host with VMX/SVM KVM, or in the emulated host "                     \
	"(--host=auto or --host=emulated), or use --watch=soft"

static const uint8_t probe_code[] = {
	0x66, 0xb8, 0x78, 0x56, 0x34, 0x12, /* 1000: mov eax, 0x12345678 */
	0x66, 0xa3, 0x00, 0x20,		    /* 1006: mov [0x2000], eax */
	0xf4,				    /* 100a: hlt */
};

/* The throw-away VM. */
struct probe_vm {
	int kvm_fd, vm_fd, vcpu_fd;
	uint8_t *ram;
	struct kvm_run *run;
	size_t run_size;
};

/* How one run of the probe guest ended. */
struct probe_stop {
	uint32_t reason;  /* KVM_EXIT_* */
	uint64_t pc, dr6; /* KVM_EXIT_DEBUG */
	uint32_t stored;  /* what the store left at PROBE_DATA_GPA */
};

static void probe_vm_close(struct probe_vm *pv)
{
	if (pv->run)
		munmap(pv->run, pv->run_size);
	if (pv->vcpu_fd >= 0)
		close(pv->vcpu_fd);
	if (pv->vm_fd >= 0)
		close(pv->vm_fd);
	if (pv->ram)
		munmap(pv->ram, PROBE_RAM_SIZE);
	if (pv->kvm_fd >= 0)
		close(pv->kvm_fd);
	memset(pv, 0, sizeof(*pv));
	pv->kvm_fd = pv->vm_fd = pv->vcpu_fd = -1;
}

/* Say which ioctl failed and return its -errno. */
static int ioctl_failed(const char *what, char *why, size_t whylen)
{
	return why_errno(why, whylen, errno, "probe VM: %s failed", what);
}

/* Say that what failed was the probe's own VM, not the run's. */
static int probe_vm_failed(int r, char *why, size_t whylen)
{
	char what[256];

	snprintf(what, sizeof(what), "%s", why);
	why_set(why, whylen, "probe VM: %s", what);
	return r;
}

/* The VM around an already open /dev/kvm @kvm_fd (which it then owns). */
static int probe_vm_open(struct probe_vm *pv, int kvm_fd, char *why, size_t whylen)
{
	int r;

	memset(pv, 0, sizeof(*pv));
	pv->vm_fd = pv->vcpu_fd = -1;
	pv->kvm_fd = kvm_fd;
	pv->vm_fd = kvm_create_vm(kvm_fd, why, whylen);
	if (pv->vm_fd < 0)
		return probe_vm_failed(pv->vm_fd, why, whylen);
	r = kvm_add_ram(pv->vm_fd, PROBE_RAM_SIZE, false, &pv->ram, why, whylen);
	if (r)
		return probe_vm_failed(r, why, whylen);
	r = kvm_run_size(kvm_fd, why, whylen);
	if (r < 0)
		return probe_vm_failed(r, why, whylen);
	pv->run_size = (size_t)r;
	pv->vcpu_fd = kvm_create_vcpu(pv->vm_fd, 0, pv->run_size, &pv->run, why, whylen);
	if (pv->vcpu_fd < 0)
		return probe_vm_failed(pv->vcpu_fd, why, whylen);
	memcpy(pv->ram + PROBE_CODE_GPA, probe_code, sizeof(probe_code));
	return 0;
}

/* Put the vCPU at the first instruction in real mode, with flat segments at 0. */
static int probe_vcpu_reset(struct probe_vm *pv, char *why, size_t whylen)
{
	struct kvm_regs regs = { .rip = PROBE_CODE_GPA,
				 .rsp = PROBE_STACK_GPA,
				 .rflags = X86_RFLAGS_FIXED };
	struct kvm_segment *segs[6];
	struct kvm_sregs sregs;
	unsigned i;

	if (ioctl(pv->vcpu_fd, KVM_GET_SREGS, &sregs) < 0)
		return ioctl_failed("KVM_GET_SREGS", why, whylen);
	segs[0] = &sregs.cs, segs[1] = &sregs.ds, segs[2] = &sregs.es;
	segs[3] = &sregs.fs, segs[4] = &sregs.gs, segs[5] = &sregs.ss;
	for (i = 0; i < 6; i++) {
		segs[i]->base = 0;
		segs[i]->selector = 0;
	}
	if (ioctl(pv->vcpu_fd, KVM_SET_SREGS, &sregs) < 0)
		return ioctl_failed("KVM_SET_SREGS", why, whylen);
	if (ioctl(pv->vcpu_fd, KVM_SET_REGS, &regs) < 0)
		return ioctl_failed("KVM_SET_REGS", why, whylen);
	memset(pv->ram + PROBE_DATA_GPA, 0, PROBE_DATA_LEN);
	return 0;
}

/*
 * Run the guest from its start under @dbg until the first debug exit, HLT
 * or anything else, within PROBE_MAX_EXITS, then switch guest debugging
 * off again.  Returns 0 with the end in @stop, or an ioctl's -errno.
 */
static int probe_run(struct probe_vm *pv, const struct kvm_guest_debug *dbg,
		     struct probe_stop *stop, char *why, size_t whylen)
{
	struct kvm_guest_debug off = { 0 };
	unsigned exits = 0;
	int r = probe_vcpu_reset(pv, why, whylen);

	memset(stop, 0, sizeof(*stop));
	if (r)
		return r;
	if (ioctl(pv->vcpu_fd, KVM_SET_GUEST_DEBUG, dbg) < 0)
		return ioctl_failed("KVM_SET_GUEST_DEBUG", why, whylen);
	/* A signal for the caller's thread ends KVM_RUN early: count it too, so
	 * a signal storm cannot keep the check going. */
	for (exits = 0; exits < PROBE_MAX_EXITS; exits++) {
		if (ioctl(pv->vcpu_fd, KVM_RUN, 0) < 0) {
			if (errno != EINTR && errno != EAGAIN)
				return ioctl_failed("KVM_RUN", why, whylen);
			stop->reason = KVM_EXIT_INTR;
			continue;
		}
		stop->reason = pv->run->exit_reason;
		if (stop->reason != KVM_EXIT_INTR)
			break;
	}
	if (stop->reason == KVM_EXIT_DEBUG) {
		stop->pc = pv->run->debug.arch.pc;
		stop->dr6 = pv->run->debug.arch.dr6;
	}
	memcpy(&stop->stored, pv->ram + PROBE_DATA_GPA, sizeof(stop->stored));
	if (ioctl(pv->vcpu_fd, KVM_SET_GUEST_DEBUG, &off) < 0)
		return ioctl_failed("KVM_SET_GUEST_DEBUG (off)", why, whylen);
	return 0;
}

/* Guest debugging with one hardware slot, DR0, armed as @slot. */
static int one_slot_debug(const struct dr_slot *slot, struct kvm_guest_debug *dbg, char *why,
			  size_t whylen)
{
	struct dr_slot slots[DR_NUM_SLOTS] = { *slot };
	uint64_t dr7;
	int r = dr7_encode(slots, &dr7, why, whylen);

	memset(dbg, 0, sizeof(*dbg));
	dbg->control = KVM_GUESTDBG_ENABLE | KVM_GUESTDBG_USE_HW_BP;
	dbg->arch.debugreg[0] = slot->addr;
	dbg->arch.debugreg[7] = dr7;
	return r;
}

/* A short name for how a run ended that was not a debug exit. */
static const char *exit_name(uint32_t reason)
{
	switch (reason) {
	case KVM_EXIT_HLT: return "the guest reached HLT";
	case KVM_EXIT_SHUTDOWN: return "the guest shut down (triple fault)";
	case KVM_EXIT_INTERNAL_ERROR: return "KVM internal error (emulation failure?)";
	case KVM_EXIT_FAIL_ENTRY: return "KVM could not enter the guest";
	case KVM_EXIT_INTR: return "interrupted too often";
	default: return "an unexpected exit";
	}
}

/* The loaded KVM implementation, from its module, for messages. */
struct kvm_module {
	const char *sysfs, *name, *note;
	const char *aside; /* " (name)", for "this KVM%s" */
};

static const struct kvm_module *kvm_module(void)
{
	static const struct kvm_module modules[] = {
		{ "/sys/module/kvm_pvm", "kvm_pvm", "PVM: shadow paging, no VMX/SVM",
		  " (kvm_pvm)" },
		{ "/sys/module/kvm_amd", "kvm_amd", "AMD SVM", " (kvm_amd)" },
		{ "/sys/module/kvm_intel", "kvm_intel", "Intel VMX", " (kvm_intel)" },
	};
	unsigned i;

	for (i = 0; i < sizeof(modules) / sizeof(modules[0]); i++)
		if (access(modules[i].sysfs, F_OK) == 0)
			return &modules[i];
	return NULL;
}

static const char *kvm_flavour(void)
{
	const struct kvm_module *m = kvm_module();

	return m ? m->aside : "";
}

bool probe_kvm_is_pvm(void)
{
	const struct kvm_module *m = kvm_module();

	return m && strcmp(m->name, "kvm_pvm") == 0;
}

/* A live check's result: works 1 yes, 0 no, < 0 could not check (-errno). */
struct probe_check {
	int works;
	const char *state; /* "fire", "do not fire", "misbehave", ... */
	char detail[288];  /* what was seen, for the parentheses */
};

static void check_set(struct probe_check *c, int works, const char *state, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void check_set(struct probe_check *c, int works, const char *state, const char *fmt, ...)
{
	va_list ap;

	c->works = works;
	c->state = state;
	va_start(ap, fmt);
	vsnprintf(c->detail, sizeof(c->detail), fmt, ap);
	va_end(ap);
}

/* The ioctl failure in @why (error @r) as the check's result. */
static void check_failed(struct probe_check *c, int r, const char *why)
{
	check_set(c, r, "could not check", "%s", why);
}

/* "debug exit at pc 0x100a, DR6 0xffff0ff1: data watchpoint slot 0". */
static void describe_debug_exit(const struct probe_stop *s, const struct dr_slot *slot, char *buf,
				size_t len)
{
	struct dr_slot slots[DR_NUM_SLOTS] = { 0 };
	struct dr_exit e;
	char cause[96];

	if (slot)
		slots[0] = *slot;
	dr_exit_decode(s->dr6, slots, &e);
	snprintf(buf, len, "debug exit at pc 0x%llx, DR6 0x%llx: %s", (unsigned long long)s->pc,
		 (unsigned long long)s->dr6, dr_exit_describe(&e, cause, sizeof(cause)));
}

/* Run the guest with DR0 armed as @slot; 0, or -errno with @c filled. */
static int run_one_slot(struct probe_vm *pv, const struct dr_slot *slot, struct probe_stop *s,
			struct probe_check *c)
{
	struct kvm_guest_debug dbg;
	char why[256];
	int r = one_slot_debug(slot, &dbg, why, sizeof(why));

	if (!r)
		r = probe_run(pv, &dbg, s, why, sizeof(why));
	if (r)
		check_failed(c, r, why);
	return r;
}

/* (a) A 4-byte write watchpoint on the store's target: a trap after the store. */
static void check_data_watch(struct probe_vm *pv, struct probe_check *c)
{
	struct dr_slot slot = {
		.armed = true, .kind = DR_KIND_WRITE, .addr = PROBE_DATA_GPA, .len = PROBE_DATA_LEN
	};
	struct probe_stop s;
	char seen[160];

	if (run_one_slot(pv, &slot, &s, c))
		return;
	if (s.reason == KVM_EXIT_DEBUG) {
		describe_debug_exit(&s, &slot, seen, sizeof(seen));
		if ((s.dr6 & DR6_B(0)) && s.pc == PROBE_HLT_GPA && s.stored == PROBE_VALUE)
			check_set(c, 1, "fire",
				  "wrote %d bytes at 0x%x: %s, after the store as on hardware",
				  PROBE_DATA_LEN, PROBE_DATA_GPA, seen);
		else
			check_set(c, 0, "misbehave",
				  "wrote %d bytes at 0x%x: %s; expected DR6.B0 at pc 0x%x after "
				  "the store",
				  PROBE_DATA_LEN, PROBE_DATA_GPA, seen, PROBE_HLT_GPA);
	} else if (s.reason == KVM_EXIT_HLT && s.stored == PROBE_VALUE) {
		check_set(c, 0, "do not fire",
			  "wrote %d bytes at 0x%x: no debug exit; this KVM%s does not deliver "
			  "data breakpoints to guests",
			  PROBE_DATA_LEN, PROBE_DATA_GPA, kvm_flavour());
	} else {
		check_set(c, 0, "could not be tested",
			  "the probe guest did not store its value: %s", exit_name(s.reason));
	}
}

/* (b) An execution breakpoint on the store: a fault, before the store runs. */
static void check_exec_breakpoint(struct probe_vm *pv, struct probe_check *c)
{
	struct dr_slot slot = {
		.armed = true, .kind = DR_KIND_EXEC, .addr = PROBE_STORE_GPA, .len = 1
	};
	struct probe_stop s;
	char seen[160];

	if (run_one_slot(pv, &slot, &s, c))
		return;
	if (s.reason != KVM_EXIT_DEBUG) {
		check_set(c, 0, "do not fire", "breakpoint at 0x%x: %s", PROBE_STORE_GPA,
			  exit_name(s.reason));
		return;
	}
	describe_debug_exit(&s, &slot, seen, sizeof(seen));
	if ((s.dr6 & DR6_B(0)) && s.pc == PROBE_STORE_GPA && s.stored == 0)
		check_set(c, 1, "fire", "breakpoint at 0x%x: %s", PROBE_STORE_GPA, seen);
	else
		check_set(c, 0, "misbehave",
			  "breakpoint at 0x%x: %s; expected DR6.B0 at pc 0x%x before the store",
			  PROBE_STORE_GPA, seen, PROBE_STORE_GPA);
}

/* (c) KVM_GUESTDBG_SINGLESTEP: an exit after the first instruction. */
static void check_single_step(struct probe_vm *pv, struct probe_check *c)
{
	struct kvm_guest_debug dbg = { .control = KVM_GUESTDBG_ENABLE | KVM_GUESTDBG_SINGLESTEP };
	struct probe_stop s;
	char seen[160], why[256];
	int r = probe_run(pv, &dbg, &s, why, sizeof(why));

	if (r) {
		check_failed(c, r, why);
		return;
	}
	if (s.reason != KVM_EXIT_DEBUG) {
		check_set(c, 0, "does not work", "%s", exit_name(s.reason));
		return;
	}
	describe_debug_exit(&s, NULL, seen, sizeof(seen));
	if ((s.dr6 & DR6_BS) && s.pc == PROBE_STORE_GPA)
		check_set(c, 1, "works", "%s, after the first instruction", seen);
	else
		check_set(c, 0, "misbehaves", "%s; expected DR6.BS at pc 0x%x", seen,
			  PROBE_STORE_GPA);
}

static int probe_data_watchpoints_once(char *why, size_t whylen)
{
	struct probe_check c = { 0 };
	struct probe_vm pv;
	int kvm_fd = kvm_open_dev(why, whylen), r;

	if (kvm_fd < 0)
		return kvm_fd;
	if (ioctl(kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_SET_GUEST_DEBUG) <= 0) {
		close(kvm_fd);
		why_set(why, whylen,
			"this KVM lacks KVM_CAP_SET_GUEST_DEBUG, so the host cannot program "
			"guest debug registers; " PROBE_WHAT_TO_DO);
		return 0;
	}
	r = probe_vm_open(&pv, kvm_fd, why, whylen);
	if (!r) {
		check_data_watch(&pv, &c);
		r = c.works;
		if (r >= 0)
			why_set(why, whylen, "data watchpoints %s (%s)%s", c.state, c.detail,
				r ? "" : "; " PROBE_WHAT_TO_DO);
		else
			why_set(why, whylen, "%s", c.detail);
	}
	probe_vm_close(&pv);
	return r;
}

/*
 * The host's KVM does not change while csan-vmm runs, and one run may ask
 * more than once (--host=auto picking the host, then --watch=hw or
 * --compare asking again): the throw-away VM is made once.  A failure to
 * make it (an errno) is not kept, so a later caller sees it afresh.
 */
int probe_data_watchpoints(char *why, size_t whylen)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static char known_why[512];
	static int known = -1;
	int r;

	pthread_mutex_lock(&lock);
	if (known < 0) {
		r = probe_data_watchpoints_once(known_why, sizeof(known_why));
		if (r >= 0)
			known = r;
	} else {
		r = known;
	}
	why_set(why, whylen, "%s", known_why);
	pthread_mutex_unlock(&lock);
	return r;
}

/* The capability lines; returns whether KVM_CAP_SET_GUEST_DEBUG is there. */
static bool report_caps(FILE *out, int kvm_fd)
{
	const struct kvm_module *m = kvm_module();
	int max = ioctl(kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_MAX_VCPUS);
	int nr = ioctl(kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_NR_VCPUS);
	int guest_debug = ioctl(kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_SET_GUEST_DEBUG);
	int debugregs = ioctl(kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_DEBUGREGS);

	fprintf(out, "KVM API version: %d\n", ioctl(kvm_fd, KVM_GET_API_VERSION, 0));
	if (m)
		fprintf(out, "KVM implementation: %s (%s)\n", m->name, m->note);
	else
		fprintf(out, "KVM implementation: unknown (none of kvm_intel, kvm_amd, kvm_pvm "
			     "under /sys/module)\n");
	/* KVM documents NR_VCPUS as the limit where MAX_VCPUS is missing. */
	if (max <= 0)
		max = nr;
	fprintf(out,
		"vCPUs per VM: at most %d (KVM_CAP_MAX_VCPUS), %d recommended "
		"(KVM_CAP_NR_VCPUS)\n",
		max, nr);
	fprintf(out, "KVM_CAP_SET_GUEST_DEBUG: %s\n", guest_debug > 0 ? "yes" : "no");
	fprintf(out, "KVM_CAP_DEBUGREGS: %s\n", debugregs > 0 ? "yes" : "no");
	return guest_debug > 0;
}

static void report_check(FILE *out, const char *what, const struct probe_check *c)
{
	fprintf(out, "%s: %s (%s)\n", what, c->state, c->detail);
}

int probe_report(FILE *out, FILE *err)
{
	struct probe_check data = { 0 }, exec = { 0 }, step = { 0 };
	char why[320];
	struct probe_vm pv;
	int kvm_fd = kvm_open_dev(why, sizeof(why)), r;

	if (kvm_fd < 0) {
		log_to(err, "--probe: %s", why);
		fprintf(out, "hardware-watchpoint mode: unavailable (%s)\n", why);
		return 2;
	}
	if (!report_caps(out, kvm_fd)) {
		close(kvm_fd);
		fprintf(out,
			"hardware-watchpoint mode: unavailable (no KVM_CAP_SET_GUEST_DEBUG: "
			"the host cannot program guest debug registers; %s)\n",
			PROBE_WHAT_TO_DO);
		return 2;
	}
	r = probe_vm_open(&pv, kvm_fd, why, sizeof(why));
	if (r) {
		probe_vm_close(&pv);
		log_to(err, "--probe: %s", why);
		fprintf(out,
			"hardware-watchpoint mode: unavailable (the probe guest could not "
			"run: %s)\n",
			why);
		return 2;
	}
	check_data_watch(&pv, &data);
	check_exec_breakpoint(&pv, &exec);
	check_single_step(&pv, &step);
	probe_vm_close(&pv);
	report_check(out, "data watchpoints", &data);
	report_check(out, "execution breakpoints", &exec);
	report_check(out, "single-step", &step);
	if (data.works > 0) {
		fprintf(out, "hardware-watchpoint mode: available\n");
		return 0;
	}
	if (data.works < 0)
		fprintf(out,
			"hardware-watchpoint mode: unavailable (the data watchpoint check "
			"failed: %s; %s)\n",
			data.detail, PROBE_WHAT_TO_DO);
	else
		fprintf(out,
			"hardware-watchpoint mode: unavailable (data watchpoints %s on this "
			"KVM%s; %s)\n",
			data.state, kvm_flavour(), PROBE_WHAT_TO_DO);
	return 2;
}
