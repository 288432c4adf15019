# value-unchanged-off.sh: value-unchanged with
# csan.report_value_change_only=0: the racing writes store the value that
# is already there, and are reported anyway: a data race, status 1.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm $(zoo_knobs) --append=csan.report_value_change_only=0 --scenario=value-unchanged --timeout=120
expect_rc 1
expect_out '^csan-result: scenario=value-unchanged status=pass expect=data-race mode='"$watch_mode"' .*expected_reports=[1-9][0-9]* .*matched=yes'
# Two CPUs in value_unchanged_store, a plain read or write each, at least
# one a write; no value change to show.
t='data-race in value_unchanged_store / value_unchanged_store'
store=$(top_frame value_unchanged_store 'scenarios/value-unchanged\.c')
allow_report "$t" "$(access_line write 8)" "$store" "$(access_line '(read|write)' 8)" "$store"
allow_report "$t" "$(access_line read 8)" "$store" "$(access_line write 8)" "$store"
expect_reports 1
expect_report_counts
! grep -q '^value changed: ' "$err" || fail "a value change where every write stores the same value"
expect_watch_mode
