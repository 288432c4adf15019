# range-uninstr.sh: one CPU copies a 64-byte struct with memcpy() (a range
# read wider than four debug registers reach), another stores its last
# field from uninstrumented code.  Soft mode cannot see it (the store
# checks no watchpoint, and values wider than 8 bytes are not compared):
# status 0, no report, the copy watched.  Hw mode must report it with
# both stacks, the uninstrumented writer named by a debug register: each
# wide watch backs one 32-byte window of the range (runtime/watch.c,
# hw_window), and always backing the first 32 bytes never trapped the
# store (0 hits in 5 s on seeds 1 and 2, 820-870 watches).
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm $(zoo_knobs) --scenario=range-uninstr --timeout=120
if [ "$watch_mode" = soft ]; then
	expect_rc 0
	expect_out '^csan-result: scenario=range-uninstr status=pass expect=none mode=soft .*reports=0 .*matched=yes'
	expect_reports 0
	expect_watched
else
	expect_rc 1
	expect_out '^csan-result: scenario=range-uninstr status=pass expect=data-race mode=hw .*expected_reports=[1-9][0-9]* .*matched=yes'
	allow_report 'data-race in range_uninstr_copy / range_uninstr_store' \
		"$(access_line write 8)" \
		"$(top_frame range_uninstr_store 'scenarios/uninstr/range-uninstr\.c')" \
		"$(access_line read 64)" "$(top_frame range_uninstr_copy 'scenarios/range-uninstr\.c')" \
		'Seen by: host debug register \(write\), guest soft watchpoint \(read\)'
	expect_reports 1
	expect_watch_mode
fi
expect_report_counts
! grep -q 'bad hypercall' "$err" || fail "the host refused a hypercall"
expect_no_runtime_frames
echo "$(grep -o 'reports=[0-9]* .*setup_watchpoints=[0-9]*' "$out")"
