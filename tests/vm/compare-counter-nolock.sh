# compare-counter-nolock.sh: csan-vmm --compare on a race both modes find.
# In the emulated host (kvm-amd) the guest runs in soft and then hw mode:
# one table row for the race with a count in both columns, both runs in
# the runs table, the totals and the slowdown, the same as JSON, status 1.
# Directly on PVM, where data watchpoints never reach guests, the probe's
# finding is printed once and only the soft column is shown.
. "$top_srcdir/tests/lib.sh"
require_vm_env
if [ "$CSAN_TEST_ENV" = emuhost ]; then
	# Inside the emulated host stdout is a pipe: the JSON comes after the table.
	json_arg=/dev/stdout json=$out
else
	json_arg=$work/compare.json json=$work/compare.json
fi
run_vmm_as_given --compare $(zoo_knobs) --scenario=counter-nolock --timeout=120 --seed=11 \
	--compare-json="$json_arg"
expect_rc 1
expect_out '^csan-vmm --compare: seed 11, timeout 120 s, 2 vCPUs, 1 scenario$'
# Each run still prints its reports and summary as usual, and counts
# what its guest sent.
allow_counter_nolock
expect_reports 1
expect_report_counts
expect_err '^csan-vmm: --compare: scenario counter-nolock in soft mode$'
race_row='^  counter-nolock +[0-9]+ +[0-9]+\.[0-9]{3}s +[a-z+-]+'
if on_pvm; then
	expect_err '^csan-vmm: --compare: hw mode left out, soft mode only: data watchpoints do not fire .*kvm_pvm'
	expect_out '^hw mode not run: data watchpoints do not fire .*kvm_pvm'
	expect_out "$race_row +data-race in counter_nolock_inc / counter_nolock_inc\$"
	expect_out '^  scenario +soft +result +wall +guest$'
	expect_out '^  counter-nolock +1 +pass +[0-9]+\.[0-9]{2}s +[0-9]+\.[0-9]{2}s$'
	expect_out '^totals: soft: [1-9][0-9]* distinct races?, [1-9][0-9]* reports?, wall '
	expect_no_out 'scenario counter-nolock in hw mode|slowdown|^ +hw: '
	! grep -q 'in hw mode' "$err" || fail "a hw run on a host without data watchpoints"
	grep -q '"hw_available":false,"hw_note":"data watchpoints do not fire' "$json" ||
		fail "JSON lacks hw_available false with the probe's finding"
else
	expect_err '^csan-vmm: --compare: scenario counter-nolock in hw mode$'
	expect_err '^csan-vmm: booting .* watch mode hw, '
	expect_out "$race_row +[0-9]+ +[0-9]+\\.[0-9]{3}s +[a-z+-]+ +data-race in counter_nolock_inc / counter_nolock_inc\$"
	expect_out '^  counter-nolock +1 +pass +[0-9.]+s +[0-9.]+s +1 +pass +[0-9.]+s +[0-9.]+s +[0-9]+\.[0-9]{2}x$'
	expect_out '^        found by both [1-9][0-9]*, soft only [0-9]+, hw only [0-9]+; hw/soft slowdown [0-9]+\.[0-9]{2}x wall, [0-9]+\.[0-9]{2}x guest$'
	grep -q '"hw_available":true' "$json" || fail "JSON lacks hw_available true"
	grep -Eq '"signature":"data-race:counter_nolock_inc/counter_nolock_inc",.*"soft":\{"count":[1-9][0-9]*,.*"hw":\{"count":[1-9]' "$json" ||
		fail "JSON lacks the race found in both modes"
	grep -Eq '"both":[1-9][0-9]*,' "$json" || fail "JSON totals lack races found by both"
fi
grep -q '^{"type":"compare","seed":11,' "$json" || fail "no compare JSON in $json_arg"
grep -q '^"exit_status":1}$' "$json" || fail "JSON lacks the exit status"
