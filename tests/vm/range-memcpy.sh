# range-memcpy.sh: one CPU overwrites a 64-byte struct with memcpy() (a
# range write wider than four debug registers reach), another stores its
# last 8-byte field with a plain aligned store, taken as marked and never
# watched itself.  Both modes must report it with both stacks, on the
# seeds that once never watched the copy (2 and 4: the sampler's skips
# then had a fixed residue mod 4, and the copier's step makes four
# sampled accesses; docs/scenarios.md) and on one that always did (1).
. "$top_srcdir/tests/lib.sh"
require_vm_env
t='data-race in range_memcpy_copy / range_memcpy_store'
copy=$(top_frame range_memcpy_copy 'scenarios/range-memcpy\.c')
store=$(top_frame range_memcpy_store 'scenarios/range-memcpy\.c')
for seed in 2 4 1; do
	run_vmm $(zoo_knobs) --scenario=range-memcpy --seed=$seed --timeout=120
	expect_rc 1
	expect_out '^csan-result: scenario=range-memcpy status=pass expect=data-race mode='"$watch_mode"' .*expected_reports=[1-9][0-9]* .*matched=yes'
	# The memcpy()'s 64-byte write is watched (side 2), the field store
	# runs into it (side 1).
	report_shapes=""
	allow_report "$t" "$(access_line write 8)" "$store" "$(access_line write 64)" "$copy"
	allow_unknown_origin 'data-race in range_memcpy_copy\+0x[0-9a-f]+/0x[0-9a-f]+' \
		write 64 "$copy"
	expect_reports 1
	expect_report_counts
	expect_watch_mode
	! grep -q 'bad hypercall' "$err" || fail "the host refused a hypercall"
	expect_no_runtime_frames
	echo "seed $seed: $(grep -o 'first_report_ms=[0-9]* elapsed_ms=[0-9]* iterations=[0-9]* setup_watchpoints=[0-9]*' "$out")"
done
