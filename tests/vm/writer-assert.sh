# writer-assert.sh: a locked WRITE_ONCE() writer with ASSERT_EXCLUSIVE_WRITER(),
# lockless READ_ONCE() readers, and a buggy lockless WRITE_ONCE() writer.
# Soft watchpoints must report "assert: race" naming the buggy writer and
# the asserting writer: status 1.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm $(zoo_knobs) --scenario=writer-assert --timeout=120
expect_rc 1
expect_out '^csan-result: scenario=writer-assert status=pass expect=assert mode='"$watch_mode"' .*expected_reports=[1-9][0-9]* .*matched=yes'
# Marked accesses are never watched: the assertion is (side 2), and the
# buggy writer's WRITE_ONCE() runs into it (side 1).  A lockless reader
# never races with it.
allow_report 'assert: race in writer_assert_buggy_writer / writer_assert_locked_writer' \
	"$(access_line "$(marked write)" 8)" "$(top_frame writer_assert_buggy_writer 'scenarios/writer-assert\.c')" \
	"$(access_line 'assert no writes' 8)" "$(top_frame writer_assert_locked_writer 'scenarios/writer-assert\.c')"
allow_unknown_origin 'assert: race in writer_assert_locked_writer\+0x[0-9a-f]+/0x[0-9a-f]+' \
	'assert no writes' 8 "$(top_frame writer_assert_locked_writer 'scenarios/writer-assert\.c')"
expect_reports 1
expect_report_counts
expect_watch_mode
