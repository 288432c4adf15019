# value-unchanged-off.sh: value-unchanged with
# csan.report_value_change_only=0: the racing writes store the value that
# is already there, and are reported anyway: a data race, status 1.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm $(zoo_knobs) --append=csan.report_value_change_only=0 --scenario=value-unchanged --timeout=120
expect_rc 1
expect_out '^csan-result: scenario=value-unchanged status=pass expect=data-race mode='"$watch_mode"' .*expected_reports=[1-9][0-9]* .*matched=yes'
expect_err_in_order '^BUG: KCSAN: data-race in value_unchanged_store / value_unchanged_store$' \
	'^ value_unchanged_store\+0x[0-9a-f]+/0x[0-9a-f]+ .*scenarios/value-unchanged\.c:[0-9]+$' \
	'^ value_unchanged_store\+0x[0-9a-f]+/0x[0-9a-f]+ .*scenarios/value-unchanged\.c:[0-9]+$' \
	"watch mode: $watch_mode"
