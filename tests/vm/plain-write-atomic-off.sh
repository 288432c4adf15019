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
expect_err_in_order '^BUG: KCSAN: data-race in plain_write_atomic_(reader|writer) / plain_write_atomic_writer$' \
	'^(read \(marked\)|write) to 0x[0-9a-f]+ of 8 bytes by task [0-9]+ on cpu [0-9]+:$' \
	'^ plain_write_atomic_(reader|writer)\+0x[0-9a-f]+/0x[0-9a-f]+ .*scenarios/plain-write-atomic\.c:[0-9]+$' \
	'^write to 0x[0-9a-f]+ of 8 bytes by task [0-9]+ on cpu [0-9]+:$' \
	'^ plain_write_atomic_writer\+0x[0-9a-f]+/0x[0-9a-f]+ .*scenarios/plain-write-atomic\.c:[0-9]+$' \
	'^value changed: ' \
	"watch mode: $watch_mode"
