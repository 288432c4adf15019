# irq-same-cpu-uninstr.sh: as irq-same-cpu-watcher (interrupt watcher
# on), but the handler's write is uninstrumented.
#  soft: only the value change under the task's watch can show: nothing,
#        or a single-stack unknown-origin report naming the task's update.
#        Anything else fails.
#  hw:   the debug register traps the handler's write on the watcher's
#        own CPU: "by interrupt on cpu N", both stacks, the handler named.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm $(zoo_knobs) --append=csan.interrupt_watcher=1 --scenario=irq-same-cpu-uninstr --timeout=120
if [ "$watch_mode" = hw ]; then
	expect_rc 1
	expect_out '^csan-result: scenario=irq-same-cpu-uninstr status=pass expect=data-race mode=hw .*matched=yes ticks_cpu0=[1-9]'
	expect_irq_same_cpu_report irq_same_cpu_uninstr_handler irq_same_cpu_uninstr_task_update \
		scenarios/uninstr/irq-same-cpu-uninstr\\.c scenarios/irq-same-cpu-uninstr\\.c
	expect_err '^Seen by: host debug register \(write\), guest soft watchpoint \(read\)$'
	expect_watch_mode
else
	expect_out '^csan-result: scenario=irq-same-cpu-uninstr status=pass expect=none-or-unknown-origin mode=soft .*matched=yes ticks_cpu0=[1-9]'
	expect_at_most_unknown_origin irq_same_cpu_uninstr_task_update scenarios/irq-same-cpu-uninstr\\.c
fi
