/* halves.h: the zoo's uninstrumented halves and the variables they share with instrumented rows. */
#ifndef GUEST_SCENARIOS_UNINSTR_HALVES_H
#define GUEST_SCENARIOS_UNINSTR_HALVES_H

/*
 * Files in this directory go into libguest-uninstr.a, compiled with the
 * kernel's flags: their accesses are invisible to the soft-watchpoint
 * runtime, like a Linux file with KCSAN_SANITIZE_file.o := n or code in
 * inline asm.  A row's instrumented half (in scenarios/) owns the shared
 * variable; the uninstrumented half here only touches it.
 */
#include <stdint.h>

/* writer-assert-uninstr: the buggy lockless writer. */
extern uint64_t writer_assert_uninstr_val;
void writer_assert_uninstr_buggy_writer(uint64_t v);

/* uninstr-origin: the writer the reader's watch cannot name. */
extern uint64_t uninstr_origin_val;
void uninstr_origin_writer(uint64_t v);

/* range-uninstr: a 64-byte struct and the writer of its last field. */
struct range_uninstr_obj {
	uint64_t seq;
	uint64_t field[6];
	uint64_t tail;
};
extern struct range_uninstr_obj range_uninstr_obj;
void range_uninstr_store(uint64_t v);

/* irq-same-cpu-uninstr: the timer hook, writing this CPU's slot. */
struct irq_slot {
	uint64_t val;
} __attribute__((aligned(64)));
extern struct irq_slot irq_same_cpu_uninstr_slots[];
void irq_same_cpu_uninstr_handler(void);

#endif /* GUEST_SCENARIOS_UNINSTR_HALVES_H */
