// SPDX-License-Identifier: GPL-2.0
/*
 * csan_race_test_uninstr_module.c: the race test's uninstrumented half in
 * csan_race_test.ko, built with KCSAN_SANITIZE := n (see Kbuild).
 */
#include <linux/atomic.h>
#include <linux/irq_work.h>
#include <linux/smp.h>

/*
 * Linux 6.1 does not export irq_work_queue_on(), so in the module
 * irq-same-cpu's handler comes by the call-function IPI
 * (smp_call_function_single_async, exported): as with irq_work, in hard
 * interrupt context on @cpu.  The work's flags say BUSY from the queueing
 * until the handler has run, so the kick loop's irq_work_is_busy() and
 * irq_work_sync() wait for it as they would for irq_work.  This is
 * uninstrumented too, as the irq_work code is to KCSAN.
 */
static call_single_data_t race_test_module_csd;

static void race_test_module_irq_run(void *info)
{
	struct irq_work *work = info;

	work->func(work);
	atomic_set_release(&work->node.a_flags, 0);
}

static bool race_test_module_irq_work_queue_on(struct irq_work *work, int cpu)
{
	if (atomic_cmpxchg(&work->node.a_flags, 0, IRQ_WORK_CLAIMED))
		return false;
	INIT_CSD(&race_test_module_csd, race_test_module_irq_run, work);
	if (smp_call_function_single_async(cpu, &race_test_module_csd)) {
		/* The last IPI's csd is not released yet: try again. */
		atomic_set_release(&work->node.a_flags, 0);
		return false;
	}
	return true;
}
#define irq_work_queue_on race_test_module_irq_work_queue_on

#include "csan_race_test_uninstr.c"
