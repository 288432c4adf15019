# plain-write-atomic-off.sh: plain-write-atomic with
# csan.assume_plain_writes_atomic=0: the two writers' aligned plain stores
# are no longer taken as marked and get watched; the other writer's store
# changes the value under the watch, and whoever ran into the watchpoint
# (the other writer, or a READ_ONCE() reader) is the other side: a data
# race with both stacks in this row's functions, status 1.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm $(zoo_knobs) --append=csan.assume_plain_writes_atomic=0 --scenario=plain-write-atomic --timeout=120
expect_rc 1
expect_out '^csan-result: scenario=plain-write-atomic status=pass expect=data-race mode='"$watch_mode"' .*expected_reports=[1-9][0-9]* .*matched=yes'
f='scenarios/plain-write-atomic\.c'
writer=$(top_frame plain_write_atomic_writer "$f")
allow_report 'data-race in plain_write_atomic_writer / plain_write_atomic_writer' \
	"$(access_line write 8)" "$writer" "$(access_line write 8)" "$writer"
allow_report 'data-race in plain_write_atomic_reader / plain_write_atomic_writer' \
	"$(access_line "$(marked read)" 8)" "$(top_frame plain_write_atomic_reader "$f")" \
	"$(access_line write 8)" "$writer"
allow_unknown_origin 'data-race in plain_write_atomic_writer\+0x[0-9a-f]+/0x[0-9a-f]+' \
	write 8 "$writer"
expect_reports 1
expect_err '^value changed: 0x[0-9a-f]+ -> 0x[0-9a-f]+$' 
expect_report_counts
expect_watch_mode
