# compare-hw-only.sh: csan-vmm --compare on a zoo row whose racing writer
# is uninstrumented (writer-assert-uninstr): soft watchpoints cannot see
# that writer, so the assertion's race ("assert: race", both stacks) is
# found by hw mode only: its row has a hw count, with the debug register
# as what saw the other side.  Soft mode may see the value change under
# the assertion: a one-sided unknown-origin report, never the two-sided
# race; the table then shows that report on the race's row, its other
# side "unseen", and counts the race as found by both, one-sided in one
# mode.  On PVM only soft mode runs: the row must not appear at all.
. "$top_srcdir/tests/lib.sh"
require_vm_env
row=writer-assert-uninstr
run_vmm_as_given --compare $(zoo_knobs) --scenario=$row --timeout=120 --seed=13
allow_writer_assert_uninstr soft
title='assert: race in writer_assert_uninstr_buggy_writer / writer_assert_uninstr_locked_writer'
if on_pvm; then
	expect_reports 0
	expect_report_counts
	# Status 1 exactly when soft mode saw the value change.
	if [ "$guest" = 0 ]; then expect_rc 0; else expect_rc 1; fi
	expect_out '^hw mode not run: data watchpoints do not fire '
	! grep -Fq "$title" "$out" "$err" || fail "the two-sided race without a hw run"
else
	report_shapes=""
	allow_writer_assert_uninstr hw
	expect_reports 1
	expect_report_counts
	expect_rc 1
	expect_out "^  $row +(- +- +-|[1-9][0-9]* +[0-9]+\\.[0-9]{3}s +unseen) +[1-9][0-9]* +[0-9]+\\.[0-9]{3}s +[a-z+-]*debug-register[a-z+-]* +$title\$"
	if grep -Eq "^  $row +- +- +- " "$out"; then
		expect_out '^        found by both [0-9]+, soft only [0-9]+, hw only [1-9][0-9]*; '
	else
		expect_out '^        found by both [1-9][0-9]* \([1-9][0-9]* of them one-sided in one mode\), soft only [0-9]+, hw only [0-9]+; '
	fi
	expect_err '^csan-vmm: --compare: scenario writer-assert-uninstr in hw mode$'
	expect_err '^csan-vmm: counters: .* hw_armed=[1-9][0-9]* '
fi
