# bits.sh: ASSERT_EXCLUSIVE_BITS(flags, OWNED_MASK) in the owner; first only
# bits outside the mask change (must not be reported), then a buggy writer
# flips an owned bit.  Soft watchpoints must report "assert: race" naming
# the owner and the buggy writer, with the "bits changed" line: status 1.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm $(zoo_knobs) --scenario=bits --timeout=120
expect_rc 1
expect_out '^csan-result: scenario=bits status=pass expect=assert mode='"$watch_mode"' .*expected_reports=[1-9][0-9]* .*matched=yes fine_phase_reports=0'
# The owner's assertion is watched (side 2); the buggy writer's atomic xor
# runs into it (side 1), and the owned bit it flipped is named.  The fine
# writer's changes, outside the mask, are never reported.
allow_report 'assert: race in bits_buggy_writer / bits_owner' \
	"$(access_line "$(marked read-write)" 8)" "$(top_frame bits_buggy_writer 'scenarios/bits\.c')" \
	"$(access_line 'assert no writes' 8)" "$(top_frame bits_owner 'scenarios/bits\.c')" \
	' bits changed: 0x0*1 with mask 0x0*ff'
allow_unknown_origin 'assert: race in bits_owner\+0x[0-9a-f]+/0x[0-9a-f]+' \
	'assert no writes' 8 "$(top_frame bits_owner 'scenarios/bits\.c')" \
	' bits changed: 0x0*1 with mask 0x0*ff'
expect_reports 1
expect_report_counts
expect_watch_mode
