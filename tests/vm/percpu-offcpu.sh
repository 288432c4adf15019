# percpu-offcpu.sh: each CPU counts in its own slot under
# ASSERT_EXCLUSIVE_WRITER(); a buggy CPU also writes another CPU's slot.
# Soft watchpoints must report "assert: race" naming the remote writer and
# the owner, both stacks symbolized: status 1.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm $(zoo_knobs) --scenario=percpu-offcpu --timeout=120
expect_rc 1
expect_out '^csan-result: scenario=percpu-offcpu status=pass expect=assert mode='"$watch_mode"' .*expected_reports=[1-9][0-9]* .*matched=yes'
# The owner's assertion is watched (side 2); the remote CPU's WRITE_ONCE()
# runs into it (side 1).  The READ_ONCE() readers never do.
allow_report 'assert: race in percpu_offcpu_buggy_remote / percpu_offcpu_owner_inc' \
	"$(access_line "$(marked write)" 8)" "$(top_frame percpu_offcpu_buggy_remote 'scenarios/percpu-offcpu\.c')" \
	"$(access_line 'assert no writes' 8)" "$(top_frame percpu_offcpu_owner_inc 'scenarios/percpu-offcpu\.c')"
allow_unknown_origin 'assert: race in percpu_offcpu_owner_inc\+0x[0-9a-f]+/0x[0-9a-f]+' \
	'assert no writes' 8 "$(top_frame percpu_offcpu_owner_inc 'scenarios/percpu-offcpu\.c')"
expect_reports 1
expect_report_counts
expect_watch_mode
