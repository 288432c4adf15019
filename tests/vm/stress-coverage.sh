# stress-coverage.sh: three lockless functions on one variable (a cmpxchg
# loop with a data_race() first read, xchg(), READ_ONCE()), each starting
# with ASSERT_EXCLUSIVE_ACCESS() as a coverage switch.  Every pair that
# ran concurrently must be reported as "assert: race", both stacks
# symbolized, and the row must say it saw all three pairs: status 1.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm $(zoo_knobs) --scenario=stress-coverage --timeout=120
expect_rc 1
expect_out '^csan-result: scenario=stress-coverage status=pass expect=assert mode='"$watch_mode"' .*expected_reports=[1-9][0-9]* .*matched=yes pairs_seen=3/3 pairs=stress_xor_shift/stress_update,stress_xor_shift/stress_read,stress_update/stress_read$'
# Per pair, either function's assertion is watched (side 2, the only
# accesses watched: the rest are marked or data_race()), and the other
# function runs into it (side 1) with its assertion or a marked access
# (in hw mode a debug register may also trap the runtime's value read for
# the other assertion: a plain read).  Each pair is reported at least once.
f='scenarios/stress-coverage\.c'
for pair in 'stress_update / stress_xor_shift' 'stress_read / stress_xor_shift' \
	'stress_read / stress_update'; do
	a=$(top_frame "${pair% / *}" "$f") b=$(top_frame "${pair#* / }" "$f")
	into=$(access_line "(assert no accesses|$(marked read)|$(marked read-write)|$(marked write))")
	watch=$(access_line 'assert no accesses')
	allow_report "assert: race in $pair" "$into" "$a" "$watch" "$b"
	allow_report "assert: race in $pair" "$into" "$b" "$watch" "$a"
	expect_err "^BUG: KCSAN: assert: race in $pair\$"
done
# Any function's assertion may also see another's write one-sided (zoo.h).
for fn in stress_update stress_xor_shift stress_read; do
	allow_unknown_origin "assert: race in $fn\\+0x[0-9a-f]+/0x[0-9a-f]+" \
		'assert no accesses' '[0-9]+' "$(top_frame "$fn" "$f")"
done
expect_reports 3
expect_report_counts
expect_watch_mode
