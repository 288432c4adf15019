# compare-lock-ok.sh: csan-vmm --compare on a race-free row: no race in
# either mode (a report in either is a failure), both runs pass, status 0.
# On PVM only the soft column is run and shown.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm_as_given --compare $(zoo_knobs) --scenario=lock-ok --timeout=120 --seed=12
expect_rc 0
expect_reports 0
expect_report_counts
expect_out '^  -  +\(no races reported in any mode\)$'
expect_out '^totals: soft: 0 distinct races, 0 reports, wall '
if on_pvm; then
	expect_out '^hw mode not run: data watchpoints do not fire '
	expect_out '^  lock-ok +0 +pass +[0-9.]+s +[0-9.]+s$'
else
	expect_out '^  lock-ok +0 +pass +[0-9.]+s +[0-9.]+s +0 +pass +[0-9.]+s +[0-9.]+s +[0-9]+\.[0-9]{2}x$'
	expect_out '^        hw:   0 distinct races, 0 reports, wall '
	expect_out '^        found by both 0, soft only 0, hw only 0; '
	expect_err '^csan-vmm: counters: .* hw_armed=[1-9][0-9]* '
fi
