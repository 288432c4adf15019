# seqlock-ok.sh: seqlock readers of data written only in write-side sections.
# Race-free in soft mode: no report at all (a false positive is a failure),
# status 0 and a passing result line.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm $(zoo_knobs) --scenario=seqlock-ok --timeout=120
expect_rc 0
expect_out '^csan-result: scenario=seqlock-ok status=pass expect=none mode=soft .*expected_reports=0 reports=0 .*matched=yes'
! grep -q 'BUG: KCSAN' "$err" || fail "unexpected report"
