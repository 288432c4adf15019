/* cpu.h: inline wrappers for the privileged and special x86 instructions. */
#ifndef GUEST_CPU_H
#define GUEST_CPU_H

#include "compiler.h"
#include "x86.h"

struct cpuid_regs {
	uint32_t eax, ebx, ecx, edx;
};

static inline struct cpuid_regs cpuid(uint32_t leaf, uint32_t subleaf)
{
	struct cpuid_regs r;

	__asm__ __volatile__("cpuid"
			     : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx)
			     : "a"(leaf), "c"(subleaf));
	return r;
}

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ __volatile__("wrmsr" ::"c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32))
			     : "memory");
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ __volatile__("outb %0, %w1" ::"a"(v), "Nd"(port) : "memory");
}

static inline void outl(uint16_t port, uint32_t v)
{
	__asm__ __volatile__("outl %0, %w1" ::"a"(v), "Nd"(port) : "memory");
}

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;

	__asm__ __volatile__("inb %w1, %0" : "=a"(v) : "Nd"(port) : "memory");
	return v;
}

static inline uint64_t read_cr2(void)
{
	uint64_t v;

	__asm__ __volatile__("mov %%cr2, %0" : "=r"(v));
	return v;
}

static inline uint64_t read_cr3(void)
{
	uint64_t v;

	__asm__ __volatile__("mov %%cr3, %0" : "=r"(v));
	return v;
}

/* A spin-wait hint; under emulation it is just one cheap instruction. */
static inline void cpu_relax(void)
{
	__asm__ __volatile__("pause" ::: "memory");
}

static inline void irq_disable(void)
{
	__asm__ __volatile__("cli" ::: "memory");
}

static inline void irq_enable(void)
{
	__asm__ __volatile__("sti" ::: "memory");
}

/* Wait for the next interrupt (with interrupts enabled). */
static inline void halt(void)
{
	__asm__ __volatile__("hlt" ::: "memory");
}

/*
 * Enable interrupts and halt as one step: STI delays interrupt delivery
 * until after the next instruction, so a wake-up IPI that arrived while
 * interrupts were off is taken *after* HLT starts and ends it, instead of
 * being taken before HLT and then sleeping through it.
 */
static inline void irq_enable_and_halt(void)
{
	__asm__ __volatile__("sti; hlt" ::: "memory");
}

static inline uint64_t irq_save(void)
{
	uint64_t flags;

	__asm__ __volatile__("pushf; pop %0; cli" : "=r"(flags)::"memory");
	return flags;
}

static inline void irq_restore(uint64_t flags)
{
	if (flags & X86_EFLAGS_IF)
		irq_enable();
}

static inline __noreturn void halt_forever(void)
{
	for (;;)
		__asm__ __volatile__("cli; hlt" ::: "memory");
}

#endif /* GUEST_CPU_H */
