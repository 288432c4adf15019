# writer-assert-uninstr.sh: as writer-assert, but the buggy lockless
# writer is built without instrumentation.
#  soft: the soft watchpoint cannot see it run into the assertion: at most
#        a single-stack unknown-origin report naming the asserting writer
#        (the value changed under the watch), or nothing.  Any other
#        report fails.
#  hw:   the debug register backing the assertion's watch traps the
#        uninstrumented write: "assert: race" with both stacks, the buggy
#        writer named at its line, seen by the debug register.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm $(zoo_knobs) --scenario=writer-assert-uninstr --timeout=120
if [ "$watch_mode" = hw ]; then
	expect_rc 1
	expect_out '^csan-result: scenario=writer-assert-uninstr status=pass expect=assert mode=hw .*matched=yes'
	min=1
else
	expect_out '^csan-result: scenario=writer-assert-uninstr status=pass expect=none-or-unknown-origin mode=soft .*matched=yes'
	min=0
fi
allow_writer_assert_uninstr "$watch_mode"
expect_reports $min
[ "$watch_mode" = soft ] ||
	expect_err '^BUG: KCSAN: assert: race in writer_assert_uninstr_buggy_writer / writer_assert_uninstr_locked_writer$' 
expect_report_counts
# Soft mode: nothing (status 0), or the unknown-origin report (status 1).
if [ "$guest" = 0 ]; then expect_rc 0; else expect_rc 1; fi
expect_watch_mode
