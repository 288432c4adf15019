# lock-diag-buggy.sh: as lock-ok, but one reader forgets the lock and reads
# plainly.  Soft watchpoints must report a data race naming the lockless
# reader and the locked writer, both stacks symbolized: status 1.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm $(zoo_knobs) --scenario=lock-diag-buggy --timeout=120
expect_rc 1
expect_out '^csan-result: scenario=lock-diag-buggy status=pass expect=data-race mode=soft .*expected_reports=[1-9][0-9]* .*matched=yes'
expect_err_in_order '^BUG: KCSAN: data-race in (lock_diag_buggy_reader / lock_diag_update|lock_diag_update / lock_diag_buggy_reader)$' \
	'^ lock_diag_(buggy_reader|update)\+0x[0-9a-f]+/0x[0-9a-f]+ .*scenarios/lock-diag-buggy\.c:[0-9]+$' \
	'^ lock_diag_(buggy_reader|update)\+0x[0-9a-f]+/0x[0-9a-f]+ .*scenarios/lock-diag-buggy\.c:[0-9]+$' \
	'watch mode: soft'
# The locked reader and the data_race() diagnostic are never named.
! grep -Eq '^BUG: KCSAN: .*(lock_diag_reader|lock_diag_diag)' "$err" || fail "a correct reader was reported"
