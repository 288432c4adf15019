# xchg-lockless.sh: every access marked: xchg() writers, READ_ONCE() readers.
# Race-free in soft mode: no report at all (a false positive is a failure),
# status 0 and a passing result line.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm $(zoo_knobs) --scenario=xchg-lockless --timeout=120
expect_rc 0
expect_out '^csan-result: scenario=xchg-lockless status=pass expect=none mode=soft .*expected_reports=0 reports=0 .*matched=yes'
! grep -q 'BUG: KCSAN' "$err" || fail "unexpected report"
