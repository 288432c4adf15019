# uninstr-origin.sh: a plain reader (instrumented) and a writer in
# uninstrumented code.
#  soft: a race at unknown origin: the reader's stack only, symbolized,
#        and the value change; status 1.  Naming the writer is impossible.
#  hw:   the debug register traps the uninstrumented write: a data race
#        with both stacks, the writer named at its line.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm $(zoo_knobs) --scenario=uninstr-origin --timeout=120
expect_rc 1
if [ "$watch_mode" = hw ]; then
	expect_out '^csan-result: scenario=uninstr-origin status=pass expect=data-race mode=hw .*expected_reports=[1-9][0-9]* .*matched=yes'
else
	expect_out '^csan-result: scenario=uninstr-origin status=pass expect=unknown-origin mode=soft .*expected_reports=[1-9][0-9]* .*matched=yes'
fi
allow_uninstr_origin "$watch_mode"
expect_reports 1
[ "$watch_mode" = soft ] ||
	expect_err '^BUG: KCSAN: data-race in uninstr_origin_reader / uninstr_origin_writer$' 
expect_report_counts
expect_watch_mode
