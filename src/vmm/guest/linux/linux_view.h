/* linux_view.h: what a Linux vCPU is running, read from the host through the vmlinux. */
#ifndef CSAN_VMM_LINUX_VIEW_H
#define CSAN_VMM_LINUX_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sym;
struct vcpu;

/*
 * Where Linux 6.1 on x86-64 keeps what tells a debug-register hit apart
 * (per-CPU offsets from the symbols, structure offsets from the DWARF):
 * this CPU's preempt_count (task or interrupt), its current task and
 * that task's pid, and KCSAN's disable count (data_race(),
 * kcsan_disable_current()) in the task's struct kcsan_ctx or, in an
 * interrupt, in the per-CPU one.
 */
struct linux_layout {
	uint64_t pc_preempt, pc_current, pc_cpu_ctx; /* per-CPU offsets */
	uint64_t task_pid, task_ctx, ctx_disable;    /* structure offsets */
	bool have_task, have_ctx;		     /* the optional parts found */
};

/*
 * linux_layout_find - fill @out from @sym, reading the structures as the
 * compilation unit holding @near (a KCSAN function) defines them.
 * Returns 0, or -ENOENT with the reason in @why when the kernel has no
 * per-CPU __preempt_count (the one part that is not optional: without it
 * interrupts cannot be told from tasks).  A kernel without current_task
 * or struct kcsan_ctx loses task ids or data_race() only.
 */
int linux_layout_find(struct sym *sym, uint64_t near, struct linux_layout *out, char *why,
		      size_t whylen);

/*
 * On the vCPU's own thread while it is out of KVM_RUN, in kernel mode
 * (its GS base is the per-CPU area):
 * linux_view_context - CSAN_CTX_INTERRUPT when KCSAN's in_task() would be
 * false (NMI, hard interrupt, or serving a softirq), else CSAN_CTX_TASK;
 * linux_view_task_id - the current task's pid, 0 when unknown;
 * linux_view_checking_disabled - whether KCSAN checking is disabled in
 * @context, as data_race() does; false when unknown.
 */
uint32_t linux_view_context(struct vcpu *vcpu, const struct linux_layout *l);
uint32_t linux_view_task_id(struct vcpu *vcpu, const struct linux_layout *l);
bool linux_view_checking_disabled(struct vcpu *vcpu, const struct linux_layout *l,
				  uint32_t context);

/*
 * linux_view_runtime_pc - whether the instruction before @pc is KCSAN's
 * runtime (kernel/kcsan/, but not its tests, whose racing functions live
 * there too): its reads of a watched value are not races.
 */
bool linux_view_runtime_pc(struct sym *sym, uint64_t pc);

#endif /* CSAN_VMM_LINUX_VIEW_H */
