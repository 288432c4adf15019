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
# Soft watchpoints see the handler's write only as a value change under
# the task's watch (one stack): in soft mode, and in hw mode when it
# lands before the debug register is armed.
allow_unknown_origin 'data-race in irq_same_cpu_uninstr_task_update\+0x[0-9a-f]+/0x[0-9a-f]+' \
	read 8 "$(top_frame irq_same_cpu_uninstr_task_update 'scenarios/irq-same-cpu-uninstr\.c')"
if [ "$watch_mode" = hw ]; then
	expect_rc 1
	expect_out '^csan-result: scenario=irq-same-cpu-uninstr status=pass expect=data-race mode=hw .*matched=yes ticks_cpu0=[1-9]'
	expect_irq_same_cpu_report irq_same_cpu_uninstr_handler irq_same_cpu_uninstr_task_update \
		scenarios/uninstr/irq-same-cpu-uninstr\\.c scenarios/irq-same-cpu-uninstr\\.c \
		'Seen by: host debug register \(write\), guest soft watchpoint \(read\)'
else
	expect_out '^csan-result: scenario=irq-same-cpu-uninstr status=pass expect=none-or-unknown-origin mode=soft .*matched=yes ticks_cpu0=[1-9]'
	expect_reports 0
fi
expect_report_counts
# Soft mode: nothing (status 0), or the unknown-origin report (status 1).
if [ "$guest" = 0 ]; then expect_rc 0; else expect_rc 1; fi
expect_watch_mode
