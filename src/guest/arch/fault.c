/* fault.c: reporting exceptions and panics: to csan-vmm, or on the UART. */
#include <csan/abi.h>

#include "cpu.h"
#include "percpu.h"
#include "platform.h"
#include "printk.h"
#include "traps.h"

static const char *const exception_names[X86_NR_EXCEPTIONS] = {
	[0] = "#DE",  [1] = "#DB",  [2] = "NMI",  [3] = "#BP",	[4] = "#OF",  [5] = "#BR",
	[6] = "#UD",  [7] = "#NM",  [8] = "#DF",  [9] = "#MF",	[10] = "#TS", [11] = "#NP",
	[12] = "#SS", [13] = "#GP", [14] = "#PF", [16] = "#MF", [17] = "#AC", [18] = "#MC",
	[19] = "#XM", [20] = "#VE", [21] = "#CP", [28] = "#HV", [29] = "#VC", [30] = "#SX",
};

const char *exception_name(unsigned int vector)
{
	if (vector < X86_NR_EXCEPTIONS && exception_names[vector])
		return exception_names[vector];
	return "#??";
}

static void regs_from_frame(const struct trap_frame *f, struct csan_regs *r)
{
	*r = (struct csan_regs){
		.rax = f->rax,
		.rbx = f->rbx,
		.rcx = f->rcx,
		.rdx = f->rdx,
		.rsi = f->rsi,
		.rdi = f->rdi,
		.rbp = f->rbp,
		.rsp = f->rsp,
		.r8 = f->r8,
		.r9 = f->r9,
		.r10 = f->r10,
		.r11 = f->r11,
		.r12 = f->r12,
		.r13 = f->r13,
		.r14 = f->r14,
		.r15 = f->r15,
		.rip = f->rip,
		.rflags = f->rflags,
		.cs = f->cs,
		.ss = f->ss,
		.cr2 = read_cr2(),
		.cr3 = read_cr3(),
	};
}

__noreturn void fault_report(const struct trap_frame *f)
{
	struct csan_regs regs;

	regs_from_frame(f, &regs);
	fault_send((uint32_t)(f->vector & 0xff), f->error_code, &regs, NULL, 0);
}

/* Printing on a plain PC goes through a small buffer, one line at a time. */
static __printf(1, 2) void emergency_printf(const char *fmt, ...)
{
	char buf[160];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 1)
		n = sizeof(buf) - 1;
	console_write_emergency(buf, (size_t)n);
}

/*
 * A frame-pointer backtrace for the UART.  Under csan-vmm the host unwinds
 * and symbolizes instead; here raw addresses are printed for addr2line.
 * Stops at a zero or misaligned frame pointer or one outside low RAM.
 */
static void print_backtrace(uint64_t rip, uint64_t rbp)
{
	unsigned int depth;

	emergency_printf("  backtrace: 0x%lx", (unsigned long)rip);
	for (depth = 0; depth < 16; depth++) {
		const uint64_t *frame = (const uint64_t *)(uintptr_t)rbp;

		if (!rbp || (rbp & 7) || rbp >= 0xc0000000ul)
			break;
		if (!frame[1])
			break;
		emergency_printf(" 0x%lx", (unsigned long)frame[1]);
		rbp = frame[0];
	}
	emergency_printf("\n");
}

static void print_fault(uint32_t vector, uint64_t error_code, const struct csan_regs *r,
			const char *message, size_t message_len, unsigned int cpu)
{
	if (vector == CSAN_FAULT_PANIC)
		emergency_printf("panic on cpu %u: %.*s\n", cpu, (int)message_len, message);
	else
		emergency_printf("fault on cpu %u: vector %u (%s), error code 0x%lx\n", cpu, vector,
				 exception_name(vector), (unsigned long)error_code);
	emergency_printf("  rip 0x%016lx rsp 0x%016lx rbp 0x%016lx rflags 0x%lx\n",
			 (unsigned long)r->rip, (unsigned long)r->rsp, (unsigned long)r->rbp,
			 (unsigned long)r->rflags);
	emergency_printf("  rax 0x%016lx rbx 0x%016lx rcx 0x%016lx rdx 0x%016lx\n",
			 (unsigned long)r->rax, (unsigned long)r->rbx, (unsigned long)r->rcx,
			 (unsigned long)r->rdx);
	emergency_printf("  rsi 0x%016lx rdi 0x%016lx r8  0x%016lx r9  0x%016lx\n",
			 (unsigned long)r->rsi, (unsigned long)r->rdi, (unsigned long)r->r8,
			 (unsigned long)r->r9);
	emergency_printf("  r10 0x%016lx r11 0x%016lx r12 0x%016lx r13 0x%016lx\n",
			 (unsigned long)r->r10, (unsigned long)r->r11, (unsigned long)r->r12,
			 (unsigned long)r->r13);
	emergency_printf("  r14 0x%016lx r15 0x%016lx cr2 0x%016lx cr3 0x%lx\n",
			 (unsigned long)r->r14, (unsigned long)r->r15, (unsigned long)r->cr2,
			 (unsigned long)r->cr3);
	print_backtrace(r->rip, r->rbp);
}

__noreturn void fault_send(uint32_t vector, uint64_t error_code, const struct csan_regs *regs,
			   const char *message, size_t message_len)
{
	struct percpu *me = this_cpu();
	unsigned int cpu = me ? me->cpu : 0;
	bool nested;

	irq_disable();
	/* A fault while reporting a fault: skip straight to the exit. */
	nested = me && me->in_fault++;

	if (on_csan_vmm()) {
		struct csan_hc_fault hc = {
			.vector = vector,
			.cpu = cpu,
			.error_code = error_code,
			.message = (uintptr_t)message,
			.message_len = message ? message_len : 0,
			.regs = *regs,
		};

		hypercall(CSAN_HC_FAULT, &hc);
		/* The VMM does not resume a faulting vCPU; just in case it does: */
		halt_forever();
	}
	if (!nested)
		print_fault(vector, error_code, regs, message, message_len, cpu);
	platform_exit(GUEST_EXIT_FAULT);
}
