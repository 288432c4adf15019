# struct-copy.sh: one CPU copies a 32-byte struct whole (a range read),
# another stores one 8-byte field of it with a plain aligned store, which
# is taken as marked by default and never watched itself.  Both modes
# must report it with both stacks: soft mode because the store runs into
# the copier's 32-byte watchpoint (wider than 8 bytes, so a consumed
# watchpoint counts as a value change, as in KCSAN); hw mode besides
# because the 32-byte watch is covered by four debug registers instead
# of being refused by the host.  CSAN_STRUCT_COPY_RUNS repeats the run
# (20 for the stability claim in ../shared/ZOO.md; 1 by default).
. "$top_srcdir/tests/lib.sh"
require_vm_env
runs=${CSAN_STRUCT_COPY_RUNS:-1}
i=0
while [ "$i" -lt "$runs" ]; do
	i=$((i + 1))
	run_vmm $(zoo_knobs) --scenario=struct-copy --timeout=120
	expect_rc 1
	expect_out '^csan-result: scenario=struct-copy status=pass expect=data-race mode='"$watch_mode"' .*expected_reports=[1-9][0-9]* .*matched=yes'
	expect_err_in_order '^BUG: KCSAN: data-race in struct_copy_snapshot / struct_copy_update$' \
		'^(write to 0x[0-9a-f]+ of 8|read to 0x[0-9a-f]+ of 32) bytes by task [0-9]+ on cpu [0-9]+:$' \
		'^ struct_copy_(update|snapshot)\+0x[0-9a-f]+/0x[0-9a-f]+ src/guest/scenarios/struct-copy\.c:[0-9]+$' \
		'^ struct_copy_step\+' \
		'^(write to 0x[0-9a-f]+ of 8|read to 0x[0-9a-f]+ of 32) bytes by task [0-9]+ on cpu [0-9]+:$' \
		'^ struct_copy_(update|snapshot)\+0x[0-9a-f]+/0x[0-9a-f]+ src/guest/scenarios/struct-copy\.c:[0-9]+$' \
		'^ struct_copy_step\+' \
		"watch mode: $watch_mode"
	expect_err '^write to 0x[0-9a-f]+ of 8 bytes by task'
	expect_err '^read to 0x[0-9a-f]+ of 32 bytes by task'
	expect_watch_mode
	! grep -q 'bad hypercall' "$err" || fail "the host refused a hypercall"
	expect_no_runtime_frames
	echo "run $i/$runs: $(grep -o 'first_report_ms=[0-9]* elapsed_ms=[0-9]*' "$out")"
done
