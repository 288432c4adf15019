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
	expect_err_in_order '^BUG: KCSAN: assert: race in writer_assert_uninstr_buggy_writer / writer_assert_uninstr_locked_writer$' \
		'^write to 0x[0-9a-f]+ of 8 bytes by task [0-9]+ on cpu [0-9]+:$' \
		'^ writer_assert_uninstr_buggy_writer\+0x[0-9a-f]+/0x[0-9a-f]+ .*scenarios/uninstr/writer-assert-uninstr\.c:[0-9]+$' \
		'^assert no writes to 0x[0-9a-f]+ of 8 bytes by task [0-9]+ on cpu [0-9]+:$' \
		'^ writer_assert_uninstr_locked_writer\+0x[0-9a-f]+/0x[0-9a-f]+ .*scenarios/writer-assert-uninstr\.c:[0-9]+$' \
		'^Seen by: host debug register \(write\), guest soft watchpoint \(assert no writes\)$'
	expect_watch_mode
else
	expect_out '^csan-result: scenario=writer-assert-uninstr status=pass expect=none-or-unknown-origin mode=soft .*matched=yes'
	expect_at_most_unknown_origin writer_assert_uninstr_locked_writer \
		scenarios/writer-assert-uninstr\\.c 'assert: race'
fi
