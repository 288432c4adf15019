/* abi.h: the csan-vmm host/guest contract (boot note, hypercalls, layouts). */
#ifndef CSAN_ABI_H
#define CSAN_ABI_H

/*
 * This header is shared by the VMM (hosted C) and the guest (freestanding C
 * and assembly).  It uses C99 fixed-width types only and has no
 * dependencies, so a third-party kernel can copy it to talk to csan-vmm.
 *
 * Version rule: CSAN_ABI_VERSION changes whenever a hypercall number, a
 * struct layout or the meaning of a field changes.  The VMM runs only guests
 * whose ABI note carries exactly its version; there is no negotiation, since
 * guest and VMM are built from one tree.
 */
#define CSAN_ABI_VERSION 3

/*
 * The ABI note: an ELF note in the guest image with name "csan-vmm", type
 * CSAN_NOTE_ABI and a 4-byte descriptor holding CSAN_ABI_VERSION.  Notes
 * with the same name and other types are reserved.
 */
#define CSAN_NOTE_NAME "csan-vmm"
#define CSAN_NOTE_ABI 1

/*
 * Hypercall transport: the guest writes the guest-physical address of the
 * call's argument struct, 32 bits wide, to I/O port CSAN_HC_PORT_BASE + nr
 * (`outl`).  The struct must lie below 4 GiB, inside guest RAM, and be
 * aligned to 8 bytes.  The VMM handles the exit on the calling vCPU's
 * thread and resumes the vCPU after the OUT fields are written.
 */
#define CSAN_HC_PORT_BASE 0xc500
#define CSAN_HC_PORT_COUNT 0x100

/* The most vCPUs a guest is started with (xAPIC IDs and table sizes). */
#define CSAN_MAX_CPUS 64

#ifndef __ASSEMBLER__
#include <stdint.h>

/*
 * Guest addresses travel as plain integers so that host code cannot
 * dereference one by mistake; the VMM turns them into host pointers only
 * through its bounds-checked translation.
 */
typedef uint64_t csan_gpa_t;

enum csan_hypercall {
	CSAN_HC_PUTS = 1, /* console output, bypassing the UART */
	CSAN_HC_EXIT = 2, /* the guest is done: orderly exit with a status */
	CSAN_HC_FAULT = 3, /* unhandled exception or panic: the VMM stops */
	CSAN_HC_REPORT = 4, /* a race report: struct csan_hc_report */
	CSAN_HC_ATTACH = 5, /* the guest runtime's control block: struct csan_hc_attach */
	CSAN_HC_HW_ARM = 6, /* back a soft watchpoint with debug registers: struct csan_hc_hw_arm */
	CSAN_HC_HW_DISARM = 7, /* end that watch, learn what it caught: struct csan_hc_hw_disarm */
	CSAN_HC_MAX
};

/* CSAN_HC_PUTS: write len bytes at data to the host console. */
struct csan_hc_puts {
	/* IN */ csan_gpa_t data;
	/* IN */ uint64_t len;
};

/*
 * CSAN_HC_EXIT: end the run.  status 0 means the guest finished what it
 * was asked to do; any other value means it judged itself failed (the VMM
 * then exits with its "guest failed" status).  Does not return.
 */
struct csan_hc_exit {
	/* IN */ int32_t status;
	/* IN */ uint32_t cpu;
};

/* General registers as the guest saw them when the fault happened. */
struct csan_regs {
	uint64_t rax, rbx, rcx, rdx, rsi, rdi, rbp, rsp;
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
	uint64_t rip, rflags, cs, ss;
	uint64_t cr2, cr3;
};

/*
 * CSAN_HC_FAULT: the guest cannot continue.  vector is the exception vector
 * (0-31), or CSAN_FAULT_PANIC for a software panic, in which case message
 * and message_len describe the panic text.  regs are the interrupted
 * context for an exception and the caller's context for a panic.  Does not
 * return.
 */
#define CSAN_FAULT_PANIC 0xffffffffu
struct csan_hc_fault {
	/* IN */ uint32_t vector;
	/* IN */ uint32_t cpu;
	/* IN */ uint64_t error_code;
	/* IN */ csan_gpa_t message;
	/* IN */ uint64_t message_len;
	/* IN */ struct csan_regs regs;
};

/*
 * The scenario table: every scenario of the bundled guest is one struct
 * csan_scenario_desc in the ELF section CSAN_SCENARIO_SECTION, so the VMM
 * can list and check scenario names before it boots anything.  name and
 * summary are guest virtual addresses of NUL-terminated strings inside the
 * loaded image (the guest is identity-mapped, so they are also physical).
 */
#define CSAN_SCENARIO_SECTION ".csan.scenarios"
#define CSAN_SCENARIO_NAME_MAX 48
#define CSAN_SCENARIO_TEST_ONLY 0x1u /* hidden from --scenario=list */
struct csan_scenario_desc {
	csan_gpa_t name;
	csan_gpa_t summary;
	csan_gpa_t run; /* guest entry: int run(void), 0 = pass */
	uint32_t flags;
	uint32_t reserved;
};

/* Layouts are part of the ABI: a change here must bump the version. */
_Static_assert(sizeof(struct csan_hc_puts) == 16, "csan_hc_puts layout");
_Static_assert(sizeof(struct csan_hc_exit) == 8, "csan_hc_exit layout");
_Static_assert(sizeof(struct csan_regs) == 22 * 8, "csan_regs layout");
_Static_assert(sizeof(struct csan_hc_fault) == 32 + 22 * 8,
	       "csan_hc_fault layout");
_Static_assert(sizeof(struct csan_scenario_desc) == 32, "scenario layout");
#endif /* !__ASSEMBLER__ */

/*
 * Discovery: under csan-vmm, CPUID leaf CSAN_CPUID_BASE returns the
 * signature "csan-vmm-abi" in EBX, ECX, EDX (as KVM does with "KVMKVMKVM")
 * and the highest csan leaf in EAX.  The leaves sit at 0x40000100 so the
 * KVM leaves at 0x40000000 stay visible to a guest that wants them.
 *   CSAN_CPUID_INFO: EAX = ABI version, EBX = TSC frequency in kHz (0 if
 *   unknown), ECX = local APIC timer input frequency in kHz.
 * A guest that finds no signature runs on a plain PC (QEMU -kernel) and
 * must use the UART and a platform exit device instead of hypercalls.
 */
#define CSAN_CPUID_BASE 0x40000100u
#define CSAN_CPUID_INFO 0x40000101u
#define CSAN_CPUID_SIG_EBX 0x6e617363u /* "csan" */
#define CSAN_CPUID_SIG_ECX 0x6d6d762du /* "-vmm" */
#define CSAN_CPUID_SIG_EDX 0x6962612du /* "-abi" */

/*
 * Guest-physical layout the VMM builds (a PC-compatible subset, so that
 * the same guest boots under QEMU):
 *   [0, 0x1000)          left zero
 *   [0x1000, 0x8000)     boot data: PVH start info, memory map, command line
 *   [0x8000, 0xa0000)    free low RAM (guests use it for AP start code)
 *   [0xe0000, 0x100000)  ACPI tables (RSDP found by the usual BIOS-area scan)
 *   [0x100000, RAM end)  the kernel image, then free RAM
 *   0xfec00000           I/O APIC, 0xfee00000 local APICs (in-kernel)
 * RAM ends below CSAN_RAM_LIMIT; the rest of the 32-bit space is devices.
 */
#define CSAN_BOOT_DATA_BASE 0x1000u
#define CSAN_BOOT_DATA_END 0x8000u
#define CSAN_LOW_RAM_END 0xa0000u
#define CSAN_ACPI_BASE 0xe0000u
#define CSAN_ACPI_END 0x100000u
#define CSAN_KERNEL_MIN 0x100000u
#define CSAN_RAM_LIMIT 0xc0000000u
#define CSAN_IOAPIC_BASE 0xfec00000u
#define CSAN_LAPIC_BASE 0xfee00000u

/* The 16550 UART the VMM models and the guest's console. */
#define CSAN_COM1_PORT 0x3f8

/*
 * On a plain PC the guest ends the run through QEMU's isa-debug-exit
 * device at this port (`-device isa-debug-exit,iobase=0xf4,iosize=4`);
 * QEMU then exits with status (value << 1) | 1.
 */
#define CSAN_QEMU_EXIT_PORT 0xf4

/*
 * CSAN_HC_REPORT: one race report, sent once per finding.  The VMM checks
 * every field (see src/watch/report.c), symbolizes the addresses against
 * the guest ELF's DWARF and prints it in KCSAN's layout; the call returns
 * when the report is counted, so the guest may reuse the struct.
 *
 * A report has one side (CSAN_REPORT_UNKNOWN_ORIGIN: a value changed under
 * a watchpoint and nobody was seen writing) or two.  Sides are printed in
 * order, as KCSAN does: side[0] is the access that ran into the watchpoint,
 * side[1] the access that set it and saw the value change.  The values
 * describe the last side's access.  Each side carries its own address and
 * size because the two accesses only need to overlap.
 */
#define CSAN_REPORT_MAX_SIDES 2
#define CSAN_REPORT_MAX_STACK 64 /* return addresses per side, as KCSAN */
#define CSAN_REPORT_MAX_SIZE 4096 /* bytes per access: one watchpoint slot */

/* Access type bits, with KCSAN's meanings (include/linux/kcsan-checks.h). */
#define CSAN_ACCESS_WRITE 0x1u /* a write; without it a read */
#define CSAN_ACCESS_COMPOUND 0x2u /* read-modify-write; needs WRITE */
#define CSAN_ACCESS_ATOMIC 0x4u /* marked: READ_ONCE, atomics */
#define CSAN_ACCESS_ASSERT 0x8u /* an assertion: no writes, or with WRITE no accesses */
#define CSAN_ACCESS_SCOPED 0x10u /* checked for the length of a scope */
#define CSAN_ACCESS_KNOWN 0x1fu

/*
 * Side flags.  CSAN_SIDE_IP_AFTER: ip is just past the access, a return
 * address into the instrumented code or RIP after a trap-like #DB, so the
 * host symbolizes ip - 1.
 */
#define CSAN_SIDE_IP_AFTER 0x1u
#define CSAN_SIDE_KNOWN 0x1u

/* Which of old_value, new_value and mask hold something. */
#define CSAN_VALUE_OLD 0x1u
#define CSAN_VALUE_NEW 0x2u
#define CSAN_VALUE_MASK 0x4u /* only with OLD and NEW */
#define CSAN_VALUE_KNOWN 0x7u

#ifndef __ASSEMBLER__
enum csan_report_kind {
	CSAN_REPORT_DATA_RACE = 1, /* "BUG: KCSAN: data-race in A / B" */
	CSAN_REPORT_ASSERT = 2, /* "assert: race": some side has CSAN_ACCESS_ASSERT */
	CSAN_REPORT_UNKNOWN_ORIGIN = 3, /* one side, value changed by nobody seen */
	CSAN_REPORT_KIND_MAX
};

enum csan_report_context {
	CSAN_CTX_TASK = 1, /* task_id names the task */
	CSAN_CTX_INTERRUPT = 2, /* interrupt or exception handler; task_id 0 */
	CSAN_CTX_MAX
};

/* What saw a side: the printed report and the summary name it. */
enum csan_report_mechanism {
	CSAN_MECH_SOFT_WATCH = 1, /* the guest's soft watchpoint (KCSAN's way) */
	CSAN_MECH_HW_DEBUGREG = 2, /* a host-set debug register trapped */
	CSAN_MECH_HOST_UNWIND = 3, /* the host unwound a stopped vCPU's stack */
	CSAN_MECH_SOFT_AND_HW = 4, /* the same access ran into both */
	CSAN_MECH_SAMPLING = 5, /* the host's sampling code breakpoint stopped it (--watch=sample) */
	CSAN_MECH_MAX
};

struct csan_report_side {
	/* IN */ uint64_t addr; /* guest virtual address of the access */
	/* IN */ uint32_t size; /* bytes, 1..CSAN_REPORT_MAX_SIZE */
	/* IN */ uint32_t access; /* CSAN_ACCESS_* */
	/* IN */ uint32_t cpu; /* < CSAN_MAX_CPUS */
	/* IN */ uint32_t context; /* enum csan_report_context */
	/* IN */ uint32_t task_id; /* with CSAN_CTX_TASK, else 0 */
	/* IN */ uint32_t mechanism; /* enum csan_report_mechanism */
	/* IN */ uint32_t flags; /* CSAN_SIDE_* */
	/* IN */ uint32_t nret; /* entries of ret[] in use, <= CSAN_REPORT_MAX_STACK */
	/* IN */ uint64_t ip; /* the access (see CSAN_SIDE_IP_AFTER), not 0 */
	/* IN */ uint64_t ret[CSAN_REPORT_MAX_STACK]; /* return addresses, innermost first */
};

struct csan_hc_report {
	/* IN */ uint32_t kind; /* enum csan_report_kind */
	/* IN */ uint32_t nsides; /* 1 for CSAN_REPORT_UNKNOWN_ORIGIN, else 2 */
	/* IN */ uint32_t value_flags; /* CSAN_VALUE_* */
	/* IN */ uint32_t hw_ticket; /* the CSAN_HC_HW_ARM watch this report ends, or 0 */
	/* IN */ uint64_t old_value; /* the last side's location before ... */
	/* IN */ uint64_t new_value; /* ... and after the race */
	/* IN */ uint64_t mask; /* bits that must not change (ASSERT_EXCLUSIVE_BITS) */
	/* IN */ struct csan_report_side side[CSAN_REPORT_MAX_SIDES]; /* unused side all 0 */
};

_Static_assert(sizeof(struct csan_report_side) == 48 + 8 * CSAN_REPORT_MAX_STACK,
	       "csan_report_side layout");
_Static_assert(__builtin_offsetof(struct csan_report_side, ip) == 40, "csan_report_side ip");
_Static_assert(__builtin_offsetof(struct csan_report_side, ret) == 48, "csan_report_side ret");
_Static_assert(__builtin_offsetof(struct csan_hc_report, old_value) == 16, "csan_hc_report values");
_Static_assert(__builtin_offsetof(struct csan_hc_report, side) == 40, "csan_hc_report side");
_Static_assert(sizeof(struct csan_hc_report) == 40 + 2 * (48 + 8 * CSAN_REPORT_MAX_STACK),
	       "csan_hc_report layout");
#endif /* !__ASSEMBLER__ */

/*
 * The guest runtime's control block: the soft-watchpoint knobs (KCSAN's
 * module parameters) and its counters (KCSAN's debugfs ones), in one
 * struct the guest owns and hands to the host with CSAN_HC_ATTACH, so the
 * host can change knobs while the guest runs and read counters at exit or
 * on request, without a hypercall per change.
 *
 * Knobs: set by the guest at start-up (defaults, then its command line),
 * then written by the host whenever it likes with aligned 32-bit stores;
 * the guest reads each one afresh at every use, so a change takes effect
 * at the next watchpoint.  Counters: incremented by the guest (atomic
 * adds), read by the host with aligned 64-bit loads; each counter is
 * exact on its own, a set of them is not a snapshot.
 *
 * Append-only: new knobs and counters go at the end (counters into the
 * spare entries of counters[]), and size says how much of the struct a
 * guest has, so a host reads only fields the guest knows.
 */
#define CSAN_CONTROL_MAGIC	  0x6c727463u /* "ctrl" */
#define CSAN_CONTROL_MAX_COUNTERS 16

#ifndef __ASSEMBLER__
/* The counters, with KCSAN's debugfs names in the comments. */
enum csan_counter {
	CSAN_COUNTER_USED_WATCHPOINTS = 0,	   /* used_watchpoints: set up right now */
	CSAN_COUNTER_SETUP_WATCHPOINTS = 1,	   /* setup_watchpoints: ever set up */
	CSAN_COUNTER_DATA_RACES = 2,		   /* data_races: watchpoints hit */
	CSAN_COUNTER_ASSERT_FAILURES = 3,	   /* assert_failures */
	CSAN_COUNTER_NO_CAPACITY = 4,		   /* no_capacity: table full */
	CSAN_COUNTER_REPORT_RACES = 5,		   /* report_races: hit, but too late to report */
	CSAN_COUNTER_RACES_UNKNOWN_ORIGIN = 6,	   /* races_unknown_origin */
	CSAN_COUNTER_UNENCODABLE_ACCESSES = 7,	   /* unencodable_accesses: too large */
	CSAN_COUNTER_ENCODING_FALSE_POSITIVES = 8, /* encoding_false_positives */
	CSAN_COUNTER_REPORTS = 9,		   /* reports handed to the report sink */
	CSAN_COUNTER_REPORTS_SKIPPED = 10,	   /* races found but filtered by a knob */
	CSAN_COUNTER_HW_ARMED = 11,		   /* watchpoints the host backed with debug registers */
	CSAN_COUNTER_HW_NO_SLOT = 12,		   /* hw mode, but no debug register free: soft only */
	CSAN_COUNTER_HW_PARTIAL = 13,		   /* hw mode, but debug registers cover part of the range */
	CSAN_COUNTER_HW_HITS = 14,		   /* accesses the debug registers caught */
	CSAN_COUNTER_MAX
};

/*
 * Their printed names (KCSAN's debugfs ones), as an array initializer so
 * the guest's and the host's tables cannot drift apart.
 */
#define CSAN_COUNTER_NAMES_INIT                                                       \
	{                                                                             \
		[CSAN_COUNTER_USED_WATCHPOINTS] = "used_watchpoints",                 \
		[CSAN_COUNTER_SETUP_WATCHPOINTS] = "setup_watchpoints",               \
		[CSAN_COUNTER_DATA_RACES] = "data_races",                             \
		[CSAN_COUNTER_ASSERT_FAILURES] = "assert_failures",                   \
		[CSAN_COUNTER_NO_CAPACITY] = "no_capacity",                           \
		[CSAN_COUNTER_REPORT_RACES] = "report_races",                         \
		[CSAN_COUNTER_RACES_UNKNOWN_ORIGIN] = "races_unknown_origin",         \
		[CSAN_COUNTER_UNENCODABLE_ACCESSES] = "unencodable_accesses",         \
		[CSAN_COUNTER_ENCODING_FALSE_POSITIVES] = "encoding_false_positives", \
		[CSAN_COUNTER_REPORTS] = "reports",                                   \
		[CSAN_COUNTER_REPORTS_SKIPPED] = "reports_skipped",                   \
		[CSAN_COUNTER_HW_ARMED] = "hw_armed",                                 \
		[CSAN_COUNTER_HW_NO_SLOT] = "hw_no_slot",                             \
		[CSAN_COUNTER_HW_PARTIAL] = "hw_partial",                             \
		[CSAN_COUNTER_HW_HITS] = "hw_hits",                                   \
	}

struct csan_control {
	uint32_t magic;	    /* CSAN_CONTROL_MAGIC */
	uint32_t size;	    /* sizeof(struct csan_control) as the guest was built */
	uint32_t ncounters; /* counters[] entries the guest maintains: CSAN_COUNTER_MAX */
	uint32_t reserved;  /* 0 */
	/* Knobs (csan.NAME= on the guest command line); booleans are 0 or 1. */
	uint32_t enabled;		     /* 1: find races (default 1) */
	uint32_t skip_watch;		     /* accesses between watchpoints, randomized (4000) */
	uint32_t udelay_task;		     /* watch time in task context, us (80) */
	uint32_t udelay_interrupt;	     /* watch time in interrupt context, us (20) */
	uint32_t interrupt_watcher;	     /* 1: watch with interrupts on (0) */
	uint32_t report_value_change_only;   /* 1: racing writes must change the value (1) */
	uint32_t assume_plain_writes_atomic; /* 1: aligned word-size plain writes are marked (1) */
	uint32_t report_unknown_origin;	     /* 1: report changes nobody was seen making (1) */
	uint64_t counters[CSAN_CONTROL_MAX_COUNTERS]; /* enum csan_counter */
	/*
	 * ABI 3: hardware-watchpoint mode.  watch_hw is the host's to write
	 * (--watch=hw, the console toggle, the control socket); the guest
	 * only reads it.  irq_depth_base/stride tell the host where CPU n's
	 * interrupt nesting count (a uint32_t, 0 in task context) lives, at
	 * irq_depth_base + n * irq_depth_stride, so an access a debug
	 * register catches can be said to come from an interrupt handler
	 * even when no instrumented code ran there; base 0: unknown.
	 */
	uint32_t watch_hw;	    /* 1: back every watchpoint with debug registers (0) */
	uint32_t irq_depth_stride; /* bytes between two CPUs' counts */
	uint64_t irq_depth_base;   /* guest address of CPU 0's count, or 0 */
	/*
	 * Where CPU n's runtime keeps its "checking disabled" depth (an
	 * int32_t: data_race(), kcsan_disable_current()), for task context at
	 * disable_base + n * disable_stride and for interrupt context
	 * disable_irq_offset bytes further.  A debug register cannot tell a
	 * data_race() access from a plain one; the host reads this at the
	 * trap, and an access made with checking disabled is, as in KCSAN,
	 * no race.  Written by the runtime before it attaches; base 0: none.
	 */
	uint64_t disable_base;
	uint32_t disable_stride;
	uint32_t disable_irq_offset;
};

/*
 * The knobs as one list, so the guest's command-line parser and the
 * host's control socket accept the same names and the same ranges:
 * X(field, max) for each, field being both the csan_control member and
 * the knob's name (csan.FIELD= on the guest command line, "set FIELD" on
 * the host).  Values run from 0 to max; watch_hw is the host's own and
 * not a knob.  A long watch with interrupts off would stall its CPU, hence
 * the cap on the delays.
 */
#define CSAN_KNOB_UDELAY_MAX 1000000u
#define CSAN_KNOB_LIST(X)                                   \
	X(enabled, 1u)                                      \
	X(skip_watch, 0xffffffffu)                          \
	X(udelay_task, CSAN_KNOB_UDELAY_MAX)                \
	X(udelay_interrupt, CSAN_KNOB_UDELAY_MAX)           \
	X(interrupt_watcher, 1u)                            \
	X(report_value_change_only, 1u)                     \
	X(assume_plain_writes_atomic, 1u)                   \
	X(report_unknown_origin, 1u)

/*
 * CSAN_HC_ATTACH: the guest runtime registers its control block, once,
 * at start-up.  The block stays where it is for the rest of the run.
 */
struct csan_hc_attach {
	/* IN */ csan_gpa_t control; /* struct csan_control, 8-byte aligned */
	/* IN */ uint32_t size;	     /* bytes at control: its size field */
	/* IN */ uint32_t reserved;  /* 0 */
};

_Static_assert(CSAN_COUNTER_MAX <= CSAN_CONTROL_MAX_COUNTERS, "csan_control counters");
_Static_assert(__builtin_offsetof(struct csan_control, enabled) == 16, "csan_control knobs");
_Static_assert(__builtin_offsetof(struct csan_control, counters) == 48, "csan_control counters");
_Static_assert(__builtin_offsetof(struct csan_control, watch_hw) == 48 + 8 * CSAN_CONTROL_MAX_COUNTERS,
	       "csan_control hw fields");
_Static_assert(sizeof(struct csan_control) == 80 + 8 * CSAN_CONTROL_MAX_COUNTERS,
	       "csan_control layout");
_Static_assert(sizeof(struct csan_hc_attach) == 16, "csan_hc_attach layout");

/*
 * Hardware-watchpoint mode.  While the guest runtime watches an address
 * (its soft watchpoint is up and it delays), it asks the host to back the
 * watch with debug registers on every vCPU, its own included: then an
 * access the soft watchpoint cannot see (code built without
 * instrumentation, an interrupt handler on the watcher's own CPU) traps
 * too.  The calls nest around the delay:
 *
 *   CSAN_HC_HW_ARM   before the delay: the host arms every vCPU before it
 *                    returns, or says why it did not (status);
 *   CSAN_HC_HW_DISARM after it: every vCPU disarmed, and what the debug
 *                    registers caught (hits, the first one described);
 *   CSAN_HC_REPORT   if the runtime reports, with hw_ticket = the ticket:
 *                    the host fills in the stack of the side it caught
 *                    (mechanism CSAN_MECH_HW_DEBUGREG, nret 0) or marks a
 *                    soft side it also caught CSAN_MECH_SOFT_AND_HW.
 *
 * A host that is not in hw mode answers CSAN_HW_OFF; the guest asks only
 * while csan_control.watch_hw is 1, and the host may flip that any time.
 */
enum csan_hw_status {
	CSAN_HW_ARMED = 0,	 /* every vCPU watches; ticket is valid */
	CSAN_HW_OFF = 1,	 /* the host is not (or no longer) in hw mode */
	CSAN_HW_NO_SLOT = 2,	 /* all debug registers are in use: soft only */
	CSAN_HW_UNWATCHABLE = 3, /* not sent since ABI 3's wide watches (kept for old guests) */
};

/*
 * The widest watch CSAN_HC_HW_ARM takes: the widest soft watchpoint
 * (one slot range).  Debug registers cover aligned 1, 2, 4 or 8-byte
 * spans, four at most: the host covers the range from @addr with as
 * many as are free and says how far it got in @size; the rest of the
 * range is watched by the soft watchpoint only.
 */
#define CSAN_HW_MAX_SIZE 4096

struct csan_hc_hw_arm {
	/* IN */ uint64_t addr;	   /* guest virtual address of the watched access */
	/* IN/OUT */ uint32_t size; /* bytes, 1..CSAN_HW_MAX_SIZE; when armed, the bytes
				       from addr the debug registers cover */
	/* IN */ uint32_t access;  /* the watcher's CSAN_ACCESS_*: with WRITE any access
				      conflicts, else writes only */
	/* OUT */ uint32_t status; /* enum csan_hw_status */
	/* OUT */ uint32_t ticket; /* names the watch in DISARM and REPORT; 0 unless armed */
};

struct csan_hc_hw_disarm {
	/* IN */ uint32_t ticket;   /* from CSAN_HC_HW_ARM */
	/* OUT */ uint32_t hits;    /* accesses caught while armed (saturates) */
	/* The first access caught, when hits > 0: */
	/* OUT */ uint32_t cpu;	    /* who made it */
	/* OUT */ uint32_t context; /* enum csan_report_context */
	/* OUT */ uint32_t access;  /* CSAN_ACCESS_WRITE when it wrote, else 0 */
	/* OUT */ uint32_t size;    /* operand bytes, 0 when the instruction is unknown */
	/* OUT */ uint64_t ip;	    /* the accessing instruction */
};

_Static_assert(sizeof(struct csan_hc_hw_arm) == 24, "csan_hc_hw_arm layout");
_Static_assert(sizeof(struct csan_hc_hw_disarm) == 32, "csan_hc_hw_disarm layout");
#endif /* !__ASSEMBLER__ */

#endif /* CSAN_ABI_H */
