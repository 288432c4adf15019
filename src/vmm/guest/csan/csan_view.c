/* csan_view.c: how the watch engine reads the bundled guest (its control block). */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>

#include "csan/abi.h"
#include "vmm/guest/csan/csan_state.h"
#include "vmm/guest/csan/csan_view.h"
#include "vmm/hwwatch/hw_watch.h"
#include "vmm/kvm/vcpu.h"
#include "vmm/kvm/vm.h"

/*
 * A debug register tells the engine where an access went, not what the
 * guest was doing when it made it.  The bundled runtime publishes that in
 * its control block (abi.h, CSAN_HC_ATTACH): where each CPU keeps its
 * interrupt nesting and its checking-disabled depth.  Those are this
 * guest's terms, so they are read here, for the engine, through the same
 * struct hw_guest_view a Linux guest gives it.
 */

/*
 * The u32 that the guest runtime keeps for @cpu in a per-CPU array it
 * published in the control block (at @base + @stride * cpu + @offset,
 * fields read from it by the caller).  Guest memory, so every address is
 * checked: false when it is not there or cannot be read.
 */
static bool read_guest_percpu_u32(struct vm *vm, uint64_t base, uint64_t stride, uint64_t offset,
				  unsigned cpu, uint32_t *out)
{
	const uint32_t *p;

	if (!base || stride > 65536 || offset > 65536 || ((base | stride | offset) & 3))
		return false;
	p = vm_gpa_to_hva(vm, base + stride * cpu + offset, sizeof(*p));
	if (!p)
		return false;
	*out = __atomic_load_n(p, __ATOMIC_RELAXED);
	return true;
}

/* The guest's control block, or NULL before it attached (or if it is too small). */
static const struct csan_control *guest_control(struct vm *vm)
{
	const struct csan_control *c = csan_control(vm);

	if (!c || __atomic_load_n(&csan_state(vm)->control_size, __ATOMIC_ACQUIRE) < sizeof(*c))
		return NULL;
	return c;
}

/*
 * Interrupt or task: the guest runtime told where each CPU's interrupt
 * nesting count lives (csan_control.irq_depth_*); task context when it
 * cannot be read.
 */
static uint32_t csan_context(struct vcpu *vcpu)
{
	struct vm *vm = vcpu->vm;
	const struct csan_control *c = guest_control(vm);
	uint32_t depth = 0;

	if (!c || !read_guest_percpu_u32(vm, __atomic_load_n(&c->irq_depth_base, __ATOMIC_RELAXED),
					 __atomic_load_n(&c->irq_depth_stride, __ATOMIC_RELAXED), 0,
					 vcpu->id, &depth))
		return CSAN_CTX_TASK;
	return depth ? CSAN_CTX_INTERRUPT : CSAN_CTX_TASK;
}

/*
 * Whether @vcpu made its access with the runtime's checking disabled
 * (data_race(), kcsan_disable_current()) in @context: the debug register
 * saw the access but cannot see the marking.  The runtime published where
 * its per-CPU depth lives (csan_control.disable_*), a signed count;
 * unreadable counts as not disabled.
 */
static bool csan_checking_disabled(struct vcpu *vcpu, uint32_t context)
{
	struct vm *vm = vcpu->vm;
	const struct csan_control *c = guest_control(vm);
	uint32_t depth = 0;

	if (!c || !read_guest_percpu_u32(
			  vm, __atomic_load_n(&c->disable_base, __ATOMIC_RELAXED),
			  __atomic_load_n(&c->disable_stride, __ATOMIC_RELAXED),
			  context == CSAN_CTX_INTERRUPT
				  ? __atomic_load_n(&c->disable_irq_offset, __ATOMIC_RELAXED)
				  : 0,
			  vcpu->id, &depth))
		return false;
	return (int32_t)depth > 0;
}

/* The bundled runtime names its tasks to the host in its reports only. */
static uint32_t csan_task_id(struct vcpu *vcpu)
{
	return 0;
}

/* Its own code range is not published: no hit is told apart as the runtime's. */
static bool csan_runtime_pc(struct vm *vm, uint64_t pc)
{
	return false;
}

static const struct hw_guest_view csan_view = {
	.context = csan_context,
	.task_id = csan_task_id,
	.checking_disabled = csan_checking_disabled,
	.runtime_pc = csan_runtime_pc,
};

void csan_view_attach(struct vm *vm)
{
	hw_watch_set_view(vm->hw, &csan_view);
}
