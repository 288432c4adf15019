# rcu-leak.sh: a reader keeps a pointer from an RCU-style read-side
# section and uses it after; the updater splices the list out, waits for
# a grace period and asserts exclusive access before reusing the elements.
# Soft watchpoints must report "assert: race" naming the leaky reader and
# the reclaim, both stacks symbolized: status 1.  The reader that stays
# inside its section is never named.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm $(zoo_knobs) --scenario=rcu-leak --timeout=120
expect_rc 1
expect_out '^csan-result: scenario=rcu-leak status=pass expect=assert mode=soft .*expected_reports=[1-9][0-9]* .*matched=yes'
expect_err_in_order '^BUG: KCSAN: assert: race in rcu_leak_leaky_reader / rcu_leak_reclaim$' \
	'^ rcu_leak_(leaky_reader|reclaim)\+0x[0-9a-f]+/0x[0-9a-f]+ .*scenarios/rcu-leak\.c:[0-9]+$' \
	'^ rcu_leak_(leaky_reader|reclaim)\+0x[0-9a-f]+/0x[0-9a-f]+ .*scenarios/rcu-leak\.c:[0-9]+$' \
	'watch mode: soft'
! grep -Eq '^BUG: KCSAN: .*rcu_leak_good_reader' "$err" || fail "the correct reader was reported"
