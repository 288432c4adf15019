/* fault.c: reports of what stopped the guest: exceptions, panics, bad exits. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "vmm/base/log.h"
#include "vmm/kvm/fault.h"
#include "vmm/kvm/guest_mem.h"
#include "vmm/kvm/vm.h"
#include "vmm/kvm/x86.h"
#include "watch/report.h"
#include "watch/unwind.h"

/* SDM Vol. 3A, 6.3.1, table 6-1; AMD APM Vol. 2, 8.2 for 28-30. */
static const char *const vector_names[32] = {
	[0] = "#DE",  [1] = "#DB",  [2] = "NMI",  [3] = "#BP",	[4] = "#OF",  [5] = "#BR",
	[6] = "#UD",  [7] = "#NM",  [8] = "#DF",  [9] = "#CSO", [10] = "#TS", [11] = "#NP",
	[12] = "#SS", [13] = "#GP", [14] = "#PF", [16] = "#MF", [17] = "#AC", [18] = "#MC",
	[19] = "#XM", [20] = "#VE", [21] = "#CP", [28] = "#HV", [29] = "#VC", [30] = "#SX",
};

const char *fault_vector_name(unsigned vector)
{
	if (vector < 32 && vector_names[vector])
		return vector_names[vector];
	return "#??";
}

/* Print @r for vCPU @cpu; @c adds CR0/CR4/EFER when not NULL.  stderr is locked. */
static void print_regs(unsigned cpu, const struct csan_regs *r, const struct guest_cregs *c)
{
	log_error("vCPU %u registers:", cpu);
	log_error("  RIP %016" PRIx64 "  RFLAGS %016" PRIx64 "  CS %04" PRIx64 "  SS %04" PRIx64,
		  r->rip, r->rflags, r->cs, r->ss);
	log_error("  RAX %016" PRIx64 "  RBX %016" PRIx64 "  RCX %016" PRIx64 "  RDX %016" PRIx64,
		  r->rax, r->rbx, r->rcx, r->rdx);
	log_error("  RSI %016" PRIx64 "  RDI %016" PRIx64 "  RBP %016" PRIx64 "  RSP %016" PRIx64,
		  r->rsi, r->rdi, r->rbp, r->rsp);
	log_error("  R8  %016" PRIx64 "  R9  %016" PRIx64 "  R10 %016" PRIx64 "  R11 %016" PRIx64,
		  r->r8, r->r9, r->r10, r->r11);
	log_error("  R12 %016" PRIx64 "  R13 %016" PRIx64 "  R14 %016" PRIx64 "  R15 %016" PRIx64,
		  r->r12, r->r13, r->r14, r->r15);
	if (c)
		log_error("  CR0 %016" PRIx64 "  CR2 %016" PRIx64 "  CR3 %016" PRIx64
			  "  CR4 %016" PRIx64 "  EFER %" PRIx64,
			  c->cr0, r->cr2, r->cr3, c->cr4, c->efer);
	else
		log_error("  CR2 %016" PRIx64 "  CR3 %016" PRIx64, r->cr2, r->cr3);
}

/*
 * The guest's text, with anything unprintable shown as '?'.  In pieces
 * through one buffer: stderr is unbuffered, and a guest's panic message
 * can be long (one write per character was most of the hypercall
 * fuzzer's time).
 */
static void print_guest_text(const char *s, size_t len)
{
	char buf[256];
	size_t i, n = 0;

	while (len && (s[len - 1] == '\n' || s[len - 1] == '\r'))
		len--;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		buf[n++] = c == '\n' || (c >= 0x20 && c < 0x7f) ? (char)c : '?';
		if (n == sizeof(buf)) {
			fwrite(buf, 1, n, stderr);
			n = 0;
		}
	}
	fwrite(buf, 1, n, stderr);
}

/* The faulting context's stack, unwound on the host and symbolized. */
static void print_guest_stack(struct vcpu *vcpu, const struct csan_regs *regs)
{
	uint64_t pcs[UNWIND_MAX_PCS];
	struct unwind_info info;
	int n;

	if (!vcpu->vm->unw || !vcpu->vm->sym)
		return;
	n = unwind_stack(vcpu->vm->unw, regs, guest_unwind_read, vcpu, 0, pcs, UNWIND_MAX_PCS,
			 &info);
	if (n <= 0)
		return;
	log_error("vCPU %u: guest stack:", vcpu->id);
	report_print_stack(stderr, vcpu->vm->sym, pcs, (unsigned)n, LOG_PREFIX "  ");
	if (info.orc_error[0])
		log_error("  (ORC unwinding stopped: %s)", info.orc_error);
	else if (info.cfi_error[0])
		log_error("  (CFI unwinding stopped: %s; frame pointers after)", info.cfi_error);
}

void fault_report_guest(struct vcpu *vcpu, const struct csan_hc_fault *f, const char *msg,
			size_t msg_len)
{
	log_begin();
	if (f->vector == CSAN_FAULT_PANIC) {
		fprintf(stderr, LOG_PREFIX "vCPU %u: guest panic: ", vcpu->id);
		print_guest_text(msg ? msg : "(no message)", msg ? msg_len : 12);
		fprintf(stderr, "\n");
	} else {
		log_error("vCPU %u: guest exception %s (vector %u), error code %#" PRIx64
			  ", CR2 %#" PRIx64 ", RIP %#" PRIx64,
			  vcpu->id, fault_vector_name(f->vector), f->vector, f->error_code,
			  f->regs.cr2, f->regs.rip);
		if (msg && msg_len) {
			fprintf(stderr, LOG_PREFIX "vCPU %u: guest says: ", vcpu->id);
			print_guest_text(msg, msg_len);
			fprintf(stderr, "\n");
		}
	}
	if (f->cpu != vcpu->id)
		log_error("vCPU %u: (the guest calls this CPU %" PRIu32 ")", vcpu->id, f->cpu);
	print_regs(vcpu->id, &f->regs, NULL);
	print_guest_stack(vcpu, &f->regs);
	log_end();
}

static void print_code(struct vcpu *vcpu, uint64_t rip)
{
	uint8_t code[X86_MAX_INSN_LEN];
	size_t i, n = guest_read_code(vcpu, rip, code, sizeof(code));

	if (!n) {
		log_error("vCPU %u: code at RIP: not in guest RAM", vcpu->id);
		return;
	}
	fprintf(stderr, LOG_PREFIX "vCPU %u: code at RIP:", vcpu->id);
	for (i = 0; i < n; i++)
		fprintf(stderr, " %02x", code[i]);
	fprintf(stderr, "\n");
}

/* Every register KVM holds for @vcpu, in the guest report's layout. */
static void print_kvm_regs(struct vcpu *vcpu)
{
	struct csan_regs r;
	struct guest_cregs c;
	int err = guest_get_regs(vcpu, &r, &c);

	if (err) {
		log_error_errno(-err, "vCPU %u: cannot read registers", vcpu->id);
		return;
	}
	print_regs(vcpu->id, &r, &c);
	print_code(vcpu, r.rip);
	/*
	 * Where it was, as for a fault the guest reported itself.  Unless
	 * KVM put the vCPU back to its reset state (protection off): kvm-amd
	 * re-initializes a vCPU on a SHUTDOWN intercept, since AMD leaves its
	 * state undefined then, and the faulting context is gone with it.
	 */
	if (!(c.cr0 & X86_CR0_PE))
		log_error("vCPU %u: no guest stack: KVM reset the vCPU when it stopped (kvm-amd "
			  "does on a triple fault), so the faulting context is gone",
			  vcpu->id);
	else
		print_guest_stack(vcpu, &r);
}

static const char *internal_error_name(uint32_t suberror)
{
	switch (suberror) {
	case KVM_INTERNAL_ERROR_EMULATION: return "emulation failure";
	case KVM_INTERNAL_ERROR_SIMUL_EX: return "exception while delivering an exception";
	case KVM_INTERNAL_ERROR_DELIVERY_EV: return "exit while delivering an event";
	case KVM_INTERNAL_ERROR_UNEXPECTED_EXIT_REASON: return "unexpected hardware exit";
	default: return "unknown sub-error";
	}
}

static void report_internal_error(struct vcpu *vcpu)
{
	struct kvm_run *run = vcpu->run;
	uint32_t i, n = run->internal.ndata;

	log_error("vCPU %u: KVM internal error %u (%s)", vcpu->id, run->internal.suberror,
		  internal_error_name(run->internal.suberror));
	if (run->internal.suberror == KVM_INTERNAL_ERROR_EMULATION && n >= 1 &&
	    (run->emulation_failure.flags & KVM_INTERNAL_ERROR_EMULATION_FLAG_INSTRUCTION_BYTES)) {
		unsigned len = run->emulation_failure.insn_size;

		if (len > X86_MAX_INSN_LEN)
			len = X86_MAX_INSN_LEN;
		fprintf(stderr, LOG_PREFIX "vCPU %u: instruction KVM could not emulate:", vcpu->id);
		for (i = 0; i < len; i++)
			fprintf(stderr, " %02x", run->emulation_failure.insn_bytes[i]);
		fprintf(stderr,
			"\n" LOG_PREFIX "(KVM without hardware virtualization, such as PVM, "
			"emulates guest kernel code and lacks some instructions: build the "
			"guest for general registers only, without POPCNT, XSAVE, SMAP or INT3)\n");
		return;
	}
	if (n > sizeof(run->internal.data) / sizeof(run->internal.data[0]))
		n = sizeof(run->internal.data) / sizeof(run->internal.data[0]);
	for (i = 0; i < n; i++)
		log_error("vCPU %u:   data[%u] = %#llx", vcpu->id, i,
			  (unsigned long long)run->internal.data[i]);
}

void fault_report_exit(struct vcpu *vcpu)
{
	struct kvm_run *run = vcpu->run;

	log_begin();
	switch (run->exit_reason) {
	case KVM_EXIT_SHUTDOWN:
		log_error("vCPU %u: triple fault (KVM_EXIT_SHUTDOWN): an exception could not be "
			  "delivered; the guest's IDT, GDT or stack is broken",
			  vcpu->id);
		break;
	case KVM_EXIT_INTERNAL_ERROR: report_internal_error(vcpu); break;
	case KVM_EXIT_FAIL_ENTRY:
		log_error("vCPU %u: VM entry failed: hardware reason %#llx on host CPU %u (invalid "
			  "guest state)",
			  vcpu->id,
			  (unsigned long long)run->fail_entry.hardware_entry_failure_reason,
			  run->fail_entry.cpu);
		break;
	case KVM_EXIT_SYSTEM_EVENT:
		log_error("vCPU %u: guest asked for a system %s (event type %u)", vcpu->id,
			  run->system_event.type == KVM_SYSTEM_EVENT_RESET ? "reset" : "shutdown",
			  run->system_event.type);
		break;
	case KVM_EXIT_DEBUG:
		log_error("vCPU %u: unexpected debug exit (exception %u, DR6 %#llx, DR7 %#llx, PC "
			  "%#llx)",
			  vcpu->id, run->debug.arch.exception,
			  (unsigned long long)run->debug.arch.dr6,
			  (unsigned long long)run->debug.arch.dr7,
			  (unsigned long long)run->debug.arch.pc);
		break;
	default:
		log_error("vCPU %u: unexpected KVM exit reason %u", vcpu->id, run->exit_reason);
		break;
	}
	print_kvm_regs(vcpu);
	log_end();
}
