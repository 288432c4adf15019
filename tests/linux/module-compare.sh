# module-compare.sh: --compare with --run (issue 26, point 4: "the same
# workload under soft, hw and sample, one table").  The workload kernel's
# race test, loaded as a module by --run='insmod ...' with its racy-plain
# case (race_test_plain_read on cpu 0 against race_test_plain_write on
# cpu 1, one u64), is run once in each mode from one initramfs.  What must
# hold:
#   - the initramfs is built once, and each mode's run runs the command
#     to its end and reads its exit status, 0;
#   - the table has the race's row with an entry in every column: KCSAN's
#     own report in soft and hw mode (the module is built with KCSAN), and
#     sampling's, whose other side a host debug register caught;
#   - the exit status is the most serious of the three runs', 1 (races);
#   - sampling's reports are each of that race, at least one two-sided,
#     in the module's frames (the checks of module-sample.sh).
. "$top_srcdir/tests/lib.sh"
LINUX_TIMEOUT=${LINUX_TIMEOUT:-300}
. "$top_srcdir/tests/linux/lib.sh"
. "$top_srcdir/tests/linux/module-lib.sh"
VMM_WALL_LIMIT=$((3 * LINUX_TIMEOUT + 120))
require_module_kernel
cmd='insmod /csan_race_test.ko csan_race_test=racy-plain csan_race_test_ms=8000'

run_compare_once() {
	timeout "$VMM_WALL_LIMIT" "$VMM" --cpus=2 --memory=256M --timeout="$LINUX_TIMEOUT" \
		--compare=soft,hw,sample --seed=26 --sample-only=race_test_plain_read,race_test_plain_write \
		--sample-period=60000 --compare-json="$work/compare.json" \
		--add="$ko:/csan_race_test.ko" --run="$cmd" \
		"$kernel" </dev/null >"$out" 2>"$err"
	rc=$?
	[ "$rc" != 124 ] || fail "csan-vmm still running after ${VMM_WALL_LIMIT}s"
}
retry_nested_state_lost run_compare_once
for mode in soft hw sample; do
	expect_err "^csan-vmm: --compare: scenario \\(default\\) in $mode mode\$"
done
# One initramfs for the three runs (with --host=emulated, built before the
# emulated host starts and said there).
built=$(grep -c '^csan-vmm: initramfs for --run: ' "$err")
[ "$built" = 1 ] || fail "the initramfs was built $built times for three runs"
done=$(tr -d '\r' <"$out" | grep -c '^csan-race-test: done$')
[ "$done" = 3 ] || fail "the race test ran to its end in $done runs of three"
status=$(grep -c "^csan-vmm: workload: '$cmd' exited with status 0\$" "$err")
[ "$status" = 3 ] || fail "the command's status 0 read in $status runs of three: $(grep '^csan-vmm: workload: ' "$err")"
expect_rc 1
expect_err "^csan-vmm: exit status 1 \\(races\\): the most serious of --compare's runs\$"

# The race's row: scenario, then count, first and seen-by per mode, then the title.
tr -d '\r' <"$out" | grep '^  (default) ' >"$work/rows"
echo "--- the table's rows:"
cat "$work/rows"
num='[0-9]+ +[0-9.]+s'
grep -Eq "^  \\(default\\) +$num +[a-z+-]+ +$num +[a-z+-]+ +$num +debug-register +data-race in race_test_plain_read / race_test_plain_write\$" "$work/rows" ||
	fail "no row of race_test_plain_read / race_test_plain_write with an entry in each mode, sampling's other side by a debug register"
expect_out '^        found by soft\+hw\+sample [1-9][0-9]*, '
grep -q '"modes":\["soft","hw","sample"\]' "$work/compare.json" ||
	fail "--compare-json has not the three modes: $(head -c 300 "$work/compare.json")"

# Sampling's reports, as module-sample.sh holds them.
expect_sample_plain_race '\[csan_race_test\] .*kernel/csan-race-test/csan_race_test\.c:[0-9]+$' ' in the module, under --compare'
sed -n '/^runs (/,$p' "$out" | tr -d '\r'
exit 0
