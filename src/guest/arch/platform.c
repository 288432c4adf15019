/* platform.c: csan-vmm detection; console and exit on csan-vmm or a PC. */
#include <csan/abi.h>

#include "cpu.h"
#include "percpu.h"
#include "platform.h"

struct platform_info platform;

/* What KVM and QEMU model for the local APIC timer's input: 1 GHz. */
#define PC_APIC_KHZ 1000000u

void platform_detect(void)
{
	struct cpuid_regs r = cpuid(CSAN_CPUID_BASE, 0);

	platform.kind = PLATFORM_PC;
	platform.tsc_khz = 0;
	platform.apic_khz = PC_APIC_KHZ;
	if (r.ebx != CSAN_CPUID_SIG_EBX || r.ecx != CSAN_CPUID_SIG_ECX ||
	    r.edx != CSAN_CPUID_SIG_EDX)
		return;
	platform.kind = PLATFORM_CSAN;
	if (r.eax >= CSAN_CPUID_INFO) {
		struct cpuid_regs info = cpuid(CSAN_CPUID_INFO, 0);

		platform.tsc_khz = info.ebx;
		if (info.ecx)
			platform.apic_khz = info.ecx;
	}
}

const char *platform_name(void)
{
	return on_csan_vmm() ? "csan-vmm" : "pc";
}

/* 16550 registers (offsets from the base port) and bits. */
enum {
	UART_THR = 0, /* transmit holding (write) */
	UART_IER = 1, /* interrupt enable; divisor high with DLAB */
	UART_FCR = 2, /* FIFO control */
	UART_LCR = 3, /* line control */
	UART_MCR = 4, /* modem control */
	UART_LSR = 5, /* line status */
	UART_DLL = 0, /* divisor low, with DLAB */
	UART_DLM = 1,
};
#define UART_LCR_8N1	      0x03
#define UART_LCR_DLAB	      0x80
#define UART_FCR_ENABLE_CLEAR 0x07
#define UART_MCR_DTR_RTS      0x03
#define UART_LSR_THRE	      0x20 /* transmit holding register empty */
#define UART_DIVISOR_115200   1

void uart_init(void)
{
	outb(CSAN_COM1_PORT + UART_IER, 0); /* polled: no interrupts */
	outb(CSAN_COM1_PORT + UART_LCR, UART_LCR_DLAB);
	outb(CSAN_COM1_PORT + UART_DLL, UART_DIVISOR_115200);
	outb(CSAN_COM1_PORT + UART_DLM, 0);
	outb(CSAN_COM1_PORT + UART_LCR, UART_LCR_8N1);
	outb(CSAN_COM1_PORT + UART_FCR, UART_FCR_ENABLE_CLEAR);
	outb(CSAN_COM1_PORT + UART_MCR, UART_MCR_DTR_RTS);
}

static void uart_putc(char c)
{
	while (!(inb(CSAN_COM1_PORT + UART_LSR) & UART_LSR_THRE))
		cpu_relax();
	outb(CSAN_COM1_PORT + UART_THR, (uint8_t)c);
}

void platform_write(const char *s, size_t len)
{
	if (on_csan_vmm()) {
		/* One exit for the whole buffer instead of one per byte. */
		struct csan_hc_puts hc = { .data = (uintptr_t)s, .len = len };

		hypercall(CSAN_HC_PUTS, &hc);
		return;
	}
	while (len--)
		uart_putc(*s++);
}

__noreturn void platform_exit(int status)
{
	if (on_csan_vmm()) {
		struct csan_hc_exit hc = { .status = status, .cpu = this_cpu_id() };

		hypercall(CSAN_HC_EXIT, &hc);
	} else {
		outl(CSAN_QEMU_EXIT_PORT, (uint32_t)status);
	}
	/* Nothing to return to: without an exit device, stop here. */
	halt_forever();
}
