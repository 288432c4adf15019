# irq-same-cpu.sh: task code and the same CPU's timer interrupt handler
# (instrumented) update one variable.
#  soft: the watcher runs with interrupts off by default, so the handler
#        never lands in a watch: no report, status 0
#        (irq-same-cpu-watcher.sh switches the interrupt watcher on).
#  hw:   the watch runs with interrupts on: the handler's write is caught
#        "by interrupt" on the watcher's own CPU, both stacks.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm $(zoo_knobs) --scenario=irq-same-cpu --timeout=120
if [ "$watch_mode" = hw ]; then
	expect_rc 1
	expect_out '^csan-result: scenario=irq-same-cpu status=pass expect=data-race mode=hw .*expected_reports=[1-9][0-9]* .*matched=yes'
	expect_irq_same_cpu_report irq_same_cpu_handler irq_same_cpu_task_update \
		scenarios/irq-same-cpu\\.c scenarios/irq-same-cpu\\.c
	expect_report_counts
	expect_watch_mode
else
	expect_rc 0
	expect_out '^csan-result: scenario=irq-same-cpu status=pass expect=none mode=soft .*expected_reports=0 reports=0 .*matched=yes ticks_cpu0=[1-9]'
	expect_reports 0
	expect_report_counts
	expect_watched
fi
