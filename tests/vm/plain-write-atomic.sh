# plain-write-atomic.sh: aligned plain word writes racing with READ_ONCE() readers
# (assume_plain_writes_atomic, on by default).
# Race-free in soft mode: no report at all (a false positive is a failure),
# status 0 and a passing result line; and it watched all along (watchpoints
# set up, the workers' steps counted, debug registers armed in hw mode).
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm $(zoo_knobs) --scenario=plain-write-atomic --timeout=120
expect_rc 0
expect_out '^csan-result: scenario=plain-write-atomic status=pass expect=none mode='"$watch_mode"' .*expected_reports=0 reports=0 .*matched=yes'
expect_reports 0
expect_report_counts
expect_watched
