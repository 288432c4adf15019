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
expect_out '^csan-result: scenario=rcu-leak status=pass expect=assert mode='"$watch_mode"' .*expected_reports=[1-9][0-9]* .*matched=yes'
# The reclaim's assertion is watched (side 2); the leaky reader's
# READ_ONCE() runs into it (side 1).  The good reader never does.
allow_report 'assert: race in rcu_leak_leaky_reader / rcu_leak_reclaim' \
	"$(access_line "$(marked read)" 8)" "$(top_frame rcu_leak_leaky_reader 'scenarios/rcu-leak\.c')" \
	"$(access_line 'assert no accesses' 16)" "$(top_frame rcu_leak_reclaim 'scenarios/rcu-leak\.c')"
expect_reports 1
expect_report_counts
expect_watch_mode
