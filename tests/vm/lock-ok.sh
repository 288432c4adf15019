# lock-ok.sh: a variable read and written only under a spinlock, plus a
# data_race() diagnostic read.
# Race-free in soft mode: no report at all (a false positive is a failure),
# status 0 and a passing result line; and it watched all along (watchpoints
# set up, the workers' steps counted, debug registers armed in hw mode).
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm $(zoo_knobs) --scenario=lock-ok --timeout=120
expect_rc 0
expect_out '^csan-result: scenario=lock-ok status=pass expect=none mode='"$watch_mode"' .*expected_reports=0 reports=0 .*matched=yes'
expect_reports 0
expect_report_counts
expect_watched
