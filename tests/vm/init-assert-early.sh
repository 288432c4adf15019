# init-assert-early.sh: as init-assert, but a worker already runs while the
# object is initialized.  The run must report "assert: race" naming the
# init (ASSERT_EXCLUSIVE_ACCESS()) and the worker's xchg(), then naming
# it and the worker's READ_ONCE() (the row gives them turns, so both
# modes report both on every run): status 1.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm $(zoo_knobs) --scenario=init-assert-early --timeout=120
expect_rc 1
expect_out '^csan-result: scenario=init-assert-early status=pass expect=assert mode='"$watch_mode"' .*expected_reports=[1-9][0-9]* .*matched=yes reader_turn=reported'
# The assertion is watched (side 2); the worker's marked xchg() or
# READ_ONCE() runs into it (side 1).
f='scenarios/init-assert-early\.c'
init=$(top_frame init_assert_early_init "$f")
allow_report 'assert: race in init_assert_early_init / init_assert_early_update' \
	"$(access_line "$(marked read-write)" 8)" "$(top_frame init_assert_early_update "$f")" \
	"$(access_line 'assert no accesses' 16)" "$init"
allow_report 'assert: race in init_assert_early_init / init_assert_early_reader' \
	"$(access_line "$(marked read)" 8)" "$(top_frame init_assert_early_reader "$f")" \
	"$(access_line 'assert no accesses' 16)" "$init"
allow_unknown_origin 'assert: race in init_assert_early_init\+0x[0-9a-f]+/0x[0-9a-f]+' \
	'assert no accesses' 16 "$init"
expect_reports 1
expect_report_counts
expect_watch_mode
for fn in update reader; do
	expect_err "^BUG: KCSAN: assert: race in init_assert_early_init / init_assert_early_$fn\$"
done
