/* hostile-hypercalls.c: malformed hypercalls, one per run, chosen by seed=. */
#include "platform.h"
#include "scenario.h"

/*
 * A buggy kernel passes garbage to the VMM; the VMM must name the call
 * and the field, end the run as a guest fault, and stay whole.  Each case
 * ends the run, so tests/vm/hostile-hypercalls.sh boots once per case
 * (--seed=N picks it).  The argument structs are static: their guest
 * physical address is their address (the kernel is identity-mapped).
 */
static struct csan_hc_puts puts_args __aligned(8);
static uint8_t misaligned_buf[sizeof(struct csan_hc_puts) + 8] __aligned(8);
static struct csan_hc_report report_args __aligned(8);
static struct csan_hc_fault fault_args __aligned(8);
static const char hello[] = "hostile\n";

static void puts_range(uint64_t data, uint64_t len)
{
	puts_args.data = data;
	puts_args.len = len;
	hypercall(CSAN_HC_PUTS, &puts_args);
}

/* The raw transport, for argument addresses no C object has. */
static void hypercall_gpa(unsigned int nr, uint32_t gpa)
{
	__asm__ __volatile__("outl %0, %w1" ::"a"(gpa), "Nd"((uint16_t)(CSAN_HC_PORT_BASE + nr))
			     : "memory");
}

static int hostile_hypercalls_run(void)
{
	uint64_t which = csan_seed();

	printk("hostile-hypercalls: case %lu\n", (unsigned long)which);
	switch (which) {
	case 1: /* a pointer far outside RAM */
		puts_range(0xffff800000000000ull, 16);
		break;
	case 2: /* a real buffer with a huge length */
		puts_range((uintptr_t)hello, 1ull << 62);
		break;
	case 3: /* a range whose end wraps past 2^64 */
		puts_range(0xfffffffffffff000ull, 0x2000);
		break;
	case 4: /* a number no ABI version has */
		hypercall(200, &puts_args);
		break;
	case 5: /* an argument struct that is not 8-byte aligned */
		hypercall(CSAN_HC_PUTS, misaligned_buf + 4);
		break;
	case 6: /* an argument struct at the top of the 32-bit space */
		hypercall_gpa(CSAN_HC_PUTS, 0xfffffff8u);
		break;
	case 7: /* a report whose first side has no size */
		report_args.kind = CSAN_REPORT_DATA_RACE;
		report_args.nsides = 2;
		report_args.side[0].size = 0;
		hypercall(CSAN_HC_REPORT, &report_args);
		break;
	case 8: { /* a read from a hypercall port: calls are one 4-byte OUT */
		uint32_t v;

		__asm__ __volatile__("inl %w1, %0"
				     : "=a"(v)
				     : "Nd"((uint16_t)(CSAN_HC_PORT_BASE + CSAN_HC_PUTS)));
		(void)v;
		break;
	}
	case 9: /* a fault with a vector that is neither an exception nor a panic */
		fault_args.vector = 77;
		hypercall(CSAN_HC_FAULT, &fault_args);
		break;
	default:
		printk("hostile-hypercalls: no case %lu (1-9)\n", (unsigned long)which);
		return 1;
	}
	/* Every case above ends the run inside the VMM. */
	printk("hostile-hypercalls: case %lu came back\n", (unsigned long)which);
	csan_result_add("reason=call-returned");
	return 1;
}

CSAN_SCENARIO("hostile-hypercalls", "test: one malformed hypercall (seed=1..9 picks it)",
	      hostile_hypercalls_run, CSAN_SCENARIO_TEST_ONLY);
