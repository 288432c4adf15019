# irq-same-cpu-uninstr.sh: as irq-same-cpu-watcher (interrupt watcher
# on), but the handler's write is uninstrumented.  Soft watchpoints can
# only see the value change under the task's watch: nothing, or a
# single-stack unknown-origin report naming the task's update.  Anything
# else fails.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm $(zoo_knobs) --append=csan.interrupt_watcher=1 --scenario=irq-same-cpu-uninstr --timeout=120
expect_out '^csan-result: scenario=irq-same-cpu-uninstr status=pass expect=none-or-unknown-origin mode=soft .*matched=yes ticks_cpu0=[1-9]'
expect_at_most_unknown_origin irq_same_cpu_uninstr_task_update scenarios/irq-same-cpu-uninstr\\.c
