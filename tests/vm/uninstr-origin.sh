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
if [ "$watch_mode" = hw ]; then
	expect_err '^BUG: KCSAN: data-race in uninstr_origin_reader / uninstr_origin_writer$'
	# The writer's side is the host's own unwinding of the trapped vCPU:
	# under the writer, the row's step that called it (uninstr-origin.c).
	awk '
	/^BUG: KCSAN: data-race in uninstr_origin_reader \/ uninstr_origin_writer$/ { in_report = 1; next }
	in_report && /^write to / { in_side = 1; next }
	in_side && /^ uninstr_origin_step\+/ { caller = 1 }
	in_side && /^$/ { n++; if (!caller) bad++; in_report = in_side = caller = 0 }
	END { exit !(n > 0 && bad == 0) }' "$err" ||
		fail "a two-sided report's writer side has no uninstr_origin_step frame under the writer"
fi
expect_report_counts
expect_watch_mode
