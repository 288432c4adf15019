# overlap-sizes.sh: one CPU increments an 8-byte word plainly, another
# its upper 4-byte half: two instrumented accesses of different sizes
# that overlap.  Both modes report the race with both stacks, whichever
# side watched; the row runs on to eight reports.  In hw mode the racing
# side is always known (the soft watchpoint or a debug register names
# it), so no one-sided "unknown origin" report may come beside the known
# ones: the guest's row fails on one (hw_knows_writer), and this test
# allows that shape only in soft mode.
. "$top_srcdir/tests/lib.sh"
require_vm_env
t='data-race in overlap_sizes_half / overlap_sizes_word'
word=$(top_frame overlap_sizes_word 'scenarios/overlap-sizes\.c')
half=$(top_frame overlap_sizes_half 'scenarios/overlap-sizes\.c')
run_vmm $(zoo_knobs) --scenario=overlap-sizes --timeout=120
expect_rc 1
expect_out '^csan-result: scenario=overlap-sizes status=pass expect=data-race mode='"$watch_mode"' .*expected_reports=[1-9][0-9]* .*matched=yes'
# Either side may be the watcher (its read), the other's write runs
# into it.  In hw mode the write may be seen by a debug register only,
# which reads the trapping instruction: an increment's read-modify-write
# may decode as one.
wr='(write|read-write)'
allow_report "$t" "$(access_line "$wr" 4)" "$half" "$(access_line read 8)" "$word"
allow_report "$t" "$(access_line "$wr" 8)" "$word" "$(access_line read 4)" "$half"
if [ "$watch_mode" = soft ]; then
	allow_unknown_origin 'data-race in overlap_sizes_(word|half)\+0x[0-9a-f]+/0x[0-9a-f]+' \
		read '(4|8)' "($word|$half)"
else
	expect_out '^csan-result: scenario=overlap-sizes .* unknown_origin=0 '
fi
expect_reports 1
expect_report_counts
expect_watch_mode
expect_no_runtime_frames
echo "$(grep -o 'reports=[0-9]* unknown_origin=[0-9]* first_report_ms=[0-9]* elapsed_ms=[0-9]*' "$out")"
