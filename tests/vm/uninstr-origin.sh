# uninstr-origin.sh: a plain reader (instrumented) and a writer in
# uninstrumented code.  Soft watchpoints must report a race at unknown
# origin: the reader's stack only, symbolized, and the value change;
# status 1.  A report naming the writer is impossible in soft mode.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm $(zoo_knobs) --scenario=uninstr-origin --timeout=120
expect_rc 1
expect_out '^csan-result: scenario=uninstr-origin status=pass expect=unknown-origin mode=soft .*expected_reports=[1-9][0-9]* .*matched=yes'
expect_err_in_order '^BUG: KCSAN: data-race in uninstr_origin_reader\+0x[0-9a-f]+/0x[0-9a-f]+$' \
	'^race at unknown origin, with read to 0x[0-9a-f]+ of 8 bytes by task [0-9]+ on cpu [0-9]+:$' \
	'^ uninstr_origin_reader\+0x[0-9a-f]+/0x[0-9a-f]+ .*scenarios/uninstr-origin\.c:[0-9]+$' \
	'^value changed: 0x[0-9a-f]+ -> 0x[0-9a-f]+$' \
	'watch mode: soft'
expect_at_most_unknown_origin uninstr_origin_reader scenarios/uninstr-origin\\.c
