# writer-assert.sh: a locked WRITE_ONCE() writer with ASSERT_EXCLUSIVE_WRITER(),
# lockless READ_ONCE() readers, and a buggy lockless WRITE_ONCE() writer.
# Soft watchpoints must report "assert: race" naming the buggy writer and
# the asserting writer: status 1.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm $(zoo_knobs) --scenario=writer-assert --timeout=120
expect_rc 1
expect_out '^csan-result: scenario=writer-assert status=pass expect=assert mode=soft .*expected_reports=[1-9][0-9]* .*matched=yes'
expect_err_in_order '^BUG: KCSAN: assert: race in (writer_assert_buggy_writer / writer_assert_locked_writer|writer_assert_locked_writer / writer_assert_buggy_writer)$' \
	'^ writer_assert_(buggy|locked)_writer\+0x[0-9a-f]+/0x[0-9a-f]+ .*scenarios/writer-assert\.c:[0-9]+$' \
	'^ writer_assert_(buggy|locked)_writer\+0x[0-9a-f]+/0x[0-9a-f]+ .*scenarios/writer-assert\.c:[0-9]+$' \
	'watch mode: soft'
! grep -Eq '^BUG: KCSAN: .*writer_assert_reader' "$err" || fail "a lockless reader was reported"
