# bits.sh: ASSERT_EXCLUSIVE_BITS(flags, OWNED_MASK) in the owner; first only
# bits outside the mask change (must not be reported), then a buggy writer
# flips an owned bit.  Soft watchpoints must report "assert: race" naming
# the owner and the buggy writer, with the "bits changed" line: status 1.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm $(zoo_knobs) --scenario=bits --timeout=120
expect_rc 1
expect_out '^csan-result: scenario=bits status=pass expect=assert mode=soft .*expected_reports=[1-9][0-9]* .*matched=yes fine_phase_reports=0'
expect_err_in_order '^BUG: KCSAN: assert: race in (bits_buggy_writer / bits_owner|bits_owner / bits_buggy_writer)$' \
	'^ bits_(buggy_writer|owner)\+0x[0-9a-f]+/0x[0-9a-f]+ .*scenarios/bits\.c:[0-9]+$' \
	'^ bits_(buggy_writer|owner)\+0x[0-9a-f]+/0x[0-9a-f]+ .*scenarios/bits\.c:[0-9]+$' \
	'^ bits changed: 0x0*1 with mask 0x0*ff$' \
	'watch mode: soft'
! grep -Eq '^BUG: KCSAN: .*bits_fine_writer' "$err" || fail "an allowed change was reported"
