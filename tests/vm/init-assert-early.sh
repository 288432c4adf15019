# init-assert-early.sh: as init-assert, but a worker already runs while the
# object is initialized.  Soft watchpoints must report "assert: race"
# naming the init (ASSERT_EXCLUSIVE_ACCESS()) and the worker's xchg() or
# READ_ONCE(): status 1.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm $(zoo_knobs) --scenario=init-assert-early --timeout=120
expect_rc 1
expect_out '^csan-result: scenario=init-assert-early status=pass expect=assert mode=soft .*expected_reports=[1-9][0-9]* .*matched=yes'
expect_err_in_order '^BUG: KCSAN: assert: race in (init_assert_early_init / init_assert_early_(update|reader)|init_assert_early_(update|reader) / init_assert_early_init)$' \
	'^ init_assert_early_(init|update|reader)\+0x[0-9a-f]+/0x[0-9a-f]+ .*scenarios/init-assert-early\.c:[0-9]+$' \
	'^ init_assert_early_(init|update|reader)\+0x[0-9a-f]+/0x[0-9a-f]+ .*scenarios/init-assert-early\.c:[0-9]+$' \
	'watch mode: soft'
