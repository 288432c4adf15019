# irq-same-cpu.sh: task code and the same CPU's timer interrupt handler
# (instrumented) update one variable.  By default the soft watcher runs
# with interrupts off, so the handler never lands in a watch: no report,
# status 0 (irq-same-cpu-watcher.sh switches the interrupt watcher on).
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm $(zoo_knobs) --scenario=irq-same-cpu --timeout=120
expect_rc 0
expect_out '^csan-result: scenario=irq-same-cpu status=pass expect=none mode=soft .*expected_reports=0 reports=0 .*matched=yes ticks_cpu0=[1-9]'
! grep -q 'BUG: KCSAN' "$err" || fail "unexpected report"
