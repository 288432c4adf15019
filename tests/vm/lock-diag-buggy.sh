# lock-diag-buggy.sh: as lock-ok, but one reader forgets the lock and reads
# plainly.  Soft watchpoints must report a data race naming the lockless
# reader and the locked writer, both stacks symbolized: status 1.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm $(zoo_knobs) --scenario=lock-diag-buggy --timeout=120
expect_rc 1
expect_out '^csan-result: scenario=lock-diag-buggy status=pass expect=data-race mode='"$watch_mode"' .*expected_reports=[1-9][0-9]* .*matched=yes'
# Whichever side is watched, the other runs into it: the buggy reader's
# plain read and the update's write, never the locked reader or the
# data_race() diagnostic.
t='data-race in lock_diag_buggy_reader / lock_diag_update'
reader=$(top_frame lock_diag_buggy_reader 'scenarios/lock-diag-buggy\.c')
update=$(top_frame lock_diag_update 'scenarios/lock-diag-buggy\.c')
allow_report "$t" "$(access_line write)" "$update" "$(access_line read)" "$reader"
allow_report "$t" "$(access_line read)" "$reader" "$(access_line write)" "$update"
allow_unknown_origin 'data-race in lock_diag_buggy_reader\+0x[0-9a-f]+/0x[0-9a-f]+' read '[0-9]+' "$reader"
expect_reports 1
expect_report_counts
expect_watch_mode
