# refcount-reserve.sh: the last reference drop (atomic_dec_and_test())
# asserts exclusive access before the object goes to an emergency
# reserve; a buggy user updates it without holding a reference.  Soft
# watchpoints must report "assert: race" naming the buggy user and the
# release, both stacks symbolized: status 1.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm $(zoo_knobs) --scenario=refcount-reserve --timeout=120
expect_rc 1
expect_out '^csan-result: scenario=refcount-reserve status=pass expect=assert mode=soft .*expected_reports=[1-9][0-9]* .*matched=yes'
expect_err_in_order '^BUG: KCSAN: assert: race in refcount_reserve_buggy_user / refcount_reserve_put$' \
	'^ refcount_reserve_(buggy_user|put)\+0x[0-9a-f]+/0x[0-9a-f]+ .*scenarios/refcount-reserve\.c:[0-9]+$' \
	'^ refcount_reserve_(buggy_user|put)\+0x[0-9a-f]+/0x[0-9a-f]+ .*scenarios/refcount-reserve\.c:[0-9]+$' \
	'watch mode: soft'
