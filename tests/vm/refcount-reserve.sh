# refcount-reserve.sh: the last reference drop (atomic_dec_and_test())
# asserts exclusive access before the object goes to an emergency
# reserve; a buggy user updates it without holding a reference.  Soft
# watchpoints must report "assert: race" naming the buggy user and the
# release, both stacks symbolized: status 1.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm $(zoo_knobs) --scenario=refcount-reserve --timeout=120
expect_rc 1
expect_out '^csan-result: scenario=refcount-reserve status=pass expect=assert mode='"$watch_mode"' .*expected_reports=[1-9][0-9]* .*matched=yes'
# The release's assertion is watched (side 2); the buggy user's atomic
# add runs into it (side 1).
allow_report 'assert: race in refcount_reserve_buggy_user / refcount_reserve_put' \
	"$(access_line "$(marked read-write)" 8)" \
	"$(top_frame refcount_reserve_buggy_user 'scenarios/refcount-reserve\.c')" \
	"$(access_line 'assert no accesses' 8)" "$(top_frame refcount_reserve_put 'scenarios/refcount-reserve\.c')"
allow_unknown_origin 'assert: race in refcount_reserve_put\+0x[0-9a-f]+/0x[0-9a-f]+' \
	'assert no accesses' 8 "$(top_frame refcount_reserve_put 'scenarios/refcount-reserve\.c')"
expect_reports 1
expect_report_counts
expect_watch_mode
