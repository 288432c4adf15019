# writer-assert-uninstr.sh: as writer-assert, but the buggy lockless
# writer is built without instrumentation.  Soft watchpoints cannot see
# it run into the assertion: at most a single-stack unknown-origin report
# naming the asserting writer (the value changed under the watch), or
# nothing.  Any other report fails.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm $(zoo_knobs) --scenario=writer-assert-uninstr --timeout=120
expect_out '^csan-result: scenario=writer-assert-uninstr status=pass expect=none-or-unknown-origin mode=soft .*matched=yes'
expect_at_most_unknown_origin writer_assert_uninstr_locked_writer scenarios/writer-assert-uninstr\\.c
