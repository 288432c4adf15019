/* linux_view.c: what a Linux vCPU is running, read from the host through the vmlinux. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include <linux/kvm.h>

#include "csan/abi.h"
#include "vmm/kvm/guest_mem.h"
#include "vmm/guest/linux/linux_view.h"
#include "vmm/kvm/vcpu.h"
#include "watch/sym.h"

/* preempt_count bits that make in_task() false (include/linux/preempt.h): NMI, hardirq, serving
 * softirq. */
#define LINUX_NOT_TASK_MASK 0x00ff0100u

int linux_layout_find(struct sym *sym, uint64_t near, struct linux_layout *out, char *why,
		      size_t whylen)
{
	memset(out, 0, sizeof(*out));
	if (sym_addr_of(sym, "__preempt_count", 0, &out->pc_preempt, NULL)) {
		snprintf(why, whylen,
			 "this kernel has no per-CPU __preempt_count (a Linux other than 6.1 on "
			 "x86-64?): csan-vmm cannot tell interrupts from tasks in it");
		return -ENOENT;
	}
	out->have_task = sym_addr_of(sym, "current_task", 0, &out->pc_current, NULL) == 0 &&
			 sym_member_offset(sym, near, "task_struct", "pid", &out->task_pid) == 0;
	out->have_ctx =
		out->have_task &&
		sym_addr_of(sym, "kcsan_cpu_ctx", 0, &out->pc_cpu_ctx, NULL) == 0 &&
		sym_member_offset(sym, near, "task_struct", "kcsan_ctx", &out->task_ctx) == 0 &&
		sym_member_offset(sym, near, "kcsan_ctx", "disable_count", &out->ctx_disable) == 0;
	return 0;
}

static uint64_t gs_base(struct vcpu *vcpu)
{
	struct kvm_sregs s;

	return ioctl(vcpu->fd, KVM_GET_SREGS, &s) < 0 ? 0 : s.gs.base;
}

static bool read_u32(struct vcpu *vcpu, uint64_t gva, uint32_t *v)
{
	return guest_read_linear(vcpu, gva, v, sizeof(*v)) == sizeof(*v);
}

uint32_t linux_view_context(struct vcpu *vcpu, const struct linux_layout *l)
{
	uint32_t pc = 0;

	if (!read_u32(vcpu, gs_base(vcpu) + l->pc_preempt, &pc))
		return CSAN_CTX_TASK;
	return (pc & LINUX_NOT_TASK_MASK) ? CSAN_CTX_INTERRUPT : CSAN_CTX_TASK;
}

/* The task's address (this CPU's current_task), or 0. */
static uint64_t current_task(struct vcpu *vcpu, const struct linux_layout *l)
{
	uint64_t t = 0;

	if (!l->have_task ||
	    guest_read_linear(vcpu, gs_base(vcpu) + l->pc_current, &t, sizeof(t)) != sizeof(t))
		return 0;
	return t;
}

uint32_t linux_view_task_id(struct vcpu *vcpu, const struct linux_layout *l)
{
	uint64_t t = current_task(vcpu, l);
	uint32_t pid = 0;

	if (!t || !read_u32(vcpu, t + l->task_pid, &pid))
		return 0;
	return pid;
}

bool linux_view_checking_disabled(struct vcpu *vcpu, const struct linux_layout *l, uint32_t context)
{
	uint64_t ctx;
	uint32_t n = 0;

	if (!l->have_ctx)
		return false;
	if (context == CSAN_CTX_TASK) {
		uint64_t t = current_task(vcpu, l);

		if (!t)
			return false;
		ctx = t + l->task_ctx;
	} else {
		ctx = gs_base(vcpu) + l->pc_cpu_ctx;
	}
	return read_u32(vcpu, ctx + l->ctx_disable, &n) && (int32_t)n > 0;
}

bool linux_view_runtime_pc(struct sym *sym, uint64_t pc)
{
	char path[512];

	return sym_source_file(sym, pc - 1, path, sizeof(path)) == 0 &&
	       strstr(path, "kernel/kcsan/") && !strstr(path, "kcsan_test.c") &&
	       !strstr(path, "selftest.c");
}
