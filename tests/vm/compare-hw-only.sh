# compare-hw-only.sh: csan-vmm --compare on a zoo row whose racing writer
# is uninstrumented (writer-assert-uninstr): soft watchpoints cannot see
# that writer, so the assertion's race ("assert: race", both stacks) is
# found by hw mode only: its row has no soft count and a hw count, with
# the debug register as what saw the other side.  On PVM only soft mode
# runs: the row must not appear at all.
. "$top_srcdir/tests/lib.sh"
require_vm_env
row=writer-assert-uninstr
"$VMM" --scenario=list 2>/dev/null | grep -q "^$row " ||
	skip "the bundled guest has no $row zoo row yet"
run_vmm_as_given --compare $(zoo_knobs) --scenario=$row --timeout=120 --seed=13
if on_pvm; then
	# Soft mode may see the value change under the assertion (one-sided,
	# unknown origin, "assert: race in FUNC+OFF/SIZE"): 1 then; never the
	# two-sided assert race ("assert: race in A / B").
	[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "expected exit status 0 or 1, got $rc"
	expect_out '^hw mode not run: data watchpoints do not fire '
	expect_no_out 'assert: race in [a-z_0-9]+ / '
else
	expect_rc 1
	expect_out "^  $row +- +- +- +[1-9][0-9]* +[0-9]+\\.[0-9]{3}s +[a-z+-]*debug-register[a-z+-]* +assert: race in "
	expect_out '^        found by both [0-9]+, soft only [0-9]+, hw only [1-9][0-9]*; '
fi
