# irq-same-cpu-watcher.sh: irq-same-cpu with csan.interrupt_watcher=1:
# the task's watch runs with interrupts on, and the same CPU's timer
# interrupt handler runs into it.  A data race with the handler's side
# "by interrupt" and the task's "by task", on the same CPU, both stacks
# symbolized: status 1 (in hw mode too, where the watch has interrupts on
# anyway).
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm $(zoo_knobs) --append=csan.interrupt_watcher=1 --scenario=irq-same-cpu --timeout=120
expect_rc 1
expect_out '^csan-result: scenario=irq-same-cpu status=pass expect=data-race mode='"$watch_mode"' .*expected_reports=[1-9][0-9]* .*matched=yes'
expect_irq_same_cpu_report irq_same_cpu_handler irq_same_cpu_task_update \
	scenarios/irq-same-cpu\\.c scenarios/irq-same-cpu\\.c
expect_report_counts
expect_watch_mode
