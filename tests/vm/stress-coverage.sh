# stress-coverage.sh: three lockless functions on one variable (a cmpxchg
# loop with a data_race() first read, xchg(), READ_ONCE()), each starting
# with ASSERT_EXCLUSIVE_ACCESS() as a coverage switch.  Every pair that
# ran concurrently must be reported as "assert: race", both stacks
# symbolized, and the row must say it saw all three pairs: status 1.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm $(zoo_knobs) --scenario=stress-coverage --timeout=120
expect_rc 1
expect_out '^csan-result: scenario=stress-coverage status=pass expect=assert mode=soft .*expected_reports=[1-9][0-9]* .*matched=yes pairs_seen=3/3 pairs=stress_xor_shift/stress_update,stress_xor_shift/stress_read,stress_update/stress_read$'
for pair in 'stress_update / stress_xor_shift' 'stress_read / stress_xor_shift' \
	'stress_read / stress_update'; do
	a=${pair% / *} b=${pair#* / }
	expect_err_in_order "^BUG: KCSAN: assert: race in $pair\$" \
		"^ ($a|$b)\\+0x[0-9a-f]+/0x[0-9a-f]+ .*scenarios/stress-coverage\\.c:[0-9]+\$" \
		"^ ($a|$b)\\+0x[0-9a-f]+/0x[0-9a-f]+ .*scenarios/stress-coverage\\.c:[0-9]+\$" \
		'watch mode: soft'
done
# Only assertions: the functions' own accesses are marked or data_race().
! grep -E '^BUG: KCSAN' "$err" | grep -vq 'assert: race' || fail "a report that is not an assertion"
