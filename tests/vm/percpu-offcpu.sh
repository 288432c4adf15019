# percpu-offcpu.sh: each CPU counts in its own slot under
# ASSERT_EXCLUSIVE_WRITER(); a buggy CPU also writes another CPU's slot.
# Soft watchpoints must report "assert: race" naming the remote writer and
# the owner, both stacks symbolized: status 1.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm $(zoo_knobs) --scenario=percpu-offcpu --timeout=120
expect_rc 1
expect_out '^csan-result: scenario=percpu-offcpu status=pass expect=assert mode=soft .*expected_reports=[1-9][0-9]* .*matched=yes'
expect_err_in_order '^BUG: KCSAN: assert: race in percpu_offcpu_buggy_remote / percpu_offcpu_owner_inc$' \
	'^ percpu_offcpu_(buggy_remote|owner_inc)\+0x[0-9a-f]+/0x[0-9a-f]+ .*scenarios/percpu-offcpu\.c:[0-9]+$' \
	'^ percpu_offcpu_(buggy_remote|owner_inc)\+0x[0-9a-f]+/0x[0-9a-f]+ .*scenarios/percpu-offcpu\.c:[0-9]+$' \
	'watch mode: soft'
! grep -Eq '^BUG: KCSAN: .*percpu_offcpu_sum' "$err" || fail "a READ_ONCE() reader was reported"
