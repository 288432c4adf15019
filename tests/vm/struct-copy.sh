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
t='data-race in struct_copy_snapshot / struct_copy_update'
snapshot=$(top_frame struct_copy_snapshot 'scenarios/struct-copy\.c')
update=$(top_frame struct_copy_update 'scenarios/struct-copy\.c')
while [ "$i" -lt "$runs" ]; do
	i=$((i + 1))
	run_vmm $(zoo_knobs) --scenario=struct-copy --timeout=120
	expect_rc 1
	expect_out '^csan-result: scenario=struct-copy status=pass expect=data-race mode='"$watch_mode"' .*expected_reports=[1-9][0-9]* .*matched=yes'
	# The copy's 32-byte read is watched (side 2), the field store runs
	# into it (side 1).
	report_shapes=""
	allow_report "$t" "$(access_line write 8)" "$update" "$(access_line read 32)" "$snapshot"
	allow_unknown_origin 'data-race in struct_copy_snapshot\+0x[0-9a-f]+/0x[0-9a-f]+' \
		read 32 "$snapshot"
	expect_reports 1
	expect_report_counts
	expect_watch_mode
	! grep -q 'bad hypercall' "$err" || fail "the host refused a hypercall"
	expect_no_runtime_frames
	echo "run $i/$runs: $(grep -o 'first_report_ms=[0-9]* elapsed_ms=[0-9]*' "$out")"
done
