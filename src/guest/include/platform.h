/* platform.h: csan-vmm or a plain PC: console, exit and hypercalls. */
#ifndef GUEST_PLATFORM_H
#define GUEST_PLATFORM_H

#include <csan/abi.h>

#include "compiler.h"

enum platform_kind {
	PLATFORM_PC,   /* a plain PC (QEMU -kernel): UART and isa-debug-exit */
	PLATFORM_CSAN, /* csan-vmm: hypercalls */
};

struct platform_info {
	enum platform_kind kind;
	uint32_t tsc_khz;  /* 0: not known from the platform */
	uint32_t apic_khz; /* local APIC timer input frequency */
};

extern struct platform_info platform;

/* platform_detect - look for csan-vmm's CPUID signature; fills platform. */
void platform_detect(void);

static inline bool on_csan_vmm(void)
{
	return platform.kind == PLATFORM_CSAN;
}

/* platform_name - "csan-vmm" or "pc", for messages. */
const char *platform_name(void);

/*
 * hypercall - call csan-vmm: the 32-bit guest-physical address of @args
 * goes to port CSAN_HC_PORT_BASE + @nr.  The guest is identity-mapped, so
 * the address of a static or stack object is its guest-physical address.
 */
static inline void hypercall(unsigned int nr, void *args)
{
	__asm__ __volatile__("outl %0, %w1" ::"a"((uint32_t)(uintptr_t)args),
			     "Nd"((uint16_t)(CSAN_HC_PORT_BASE + nr))
			     : "memory");
}

/* platform_write - raw console output, no locking (printk locks). */
void platform_write(const char *s, size_t len);

/*
 * platform_exit - end the run with @status (0: the guest did what it was
 * asked).  On a plain PC, QEMU's isa-debug-exit turns it into exit status
 * (status << 1) | 1; without that device the CPU halts forever.
 */
__noreturn void platform_exit(int status);

/* Exit statuses of the guest itself (csan-vmm exits 5, workload-failed, on any non-zero). */
#define GUEST_EXIT_PASS	 0
#define GUEST_EXIT_FAIL	 1
#define GUEST_EXIT_USAGE 2
#define GUEST_EXIT_FAULT 3

/* uart_init - set up the 16550 at CSAN_COM1_PORT for polled output. */
void uart_init(void);

#endif /* GUEST_PLATFORM_H */
