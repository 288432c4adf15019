# linux-kunit-hw.sh: Linux's own KCSAN KUnit suite passes in hw mode as in
# soft mode (issue 15): with csan-vmm backing KCSAN's watchpoints by debug
# registers on every vCPU, every case passes (test_barrier_nothreads is
# skipped by the suite itself on this kernel), hw mode was really on, and
# no KCSAN report on the console is lost from --report-json.
#
# The suite runs in seven parts (kunit.filter_glob), each a boot of its
# own, so that the emulated host's lost-nested-state fault (docs/harness.md),
# which its harness names and which alone earns a part a second run
# (retry_nested_state_lost), costs a part, not the suite.  No case may
# fail (issue 25): a case that misses its window is csan-vmm's to explain.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/linux/lib.sh"
require_linux
# Each case waits a fixed time for its report: no other test beside it.
machine_alone
f='kernel/kcsan/kcsan_test\.c:[0-9]+'

# The parts, as globs over the case names, and how many cases each holds
# (the 29 of kernel/kcsan/kcsan_test.c in 6.1, tests/linux/qemu-tcg-kunit.txt).
# test_assert_exclusive_access_writer boots apart from
# test_assert_exclusive_access, the case before it: it needs an
# "assert_access / assert_access" report of its own, the case before
# often prints one, and KCSAN then holds back the same pair for
# CONFIG_KCSAN_REPORT_ONCE_IN_MS (tools/linux/kcsan.config) of the time
# the case waits.
parts='test_assert_exclusive_[bw]*:4 test_assert_exclusive_access:1
	test_assert_exclusive_access_*:2 test_at*:3 test_[b-d]*:5 test_[e-r]*:7 test_[s-z1]*:7'
total_passed=0 total_skipped=0 total_reports=0
failed_cases() { ktap_cases 'not ok' "$out"; }
for part in $parts; do
	glob=${part%:*} want=${part#*:}
	run_linux --watch=hw --report-json="$work/r.json" \
		-a "kunit.filter_glob=kcsan.$glob kunit_shutdown=reboot"
	result=$(sed -n 's/^linux kunit: kcsan: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p' "$err")
	[ -n "$result" ] || fail "part $glob: no complete KUnit result: $(grep '^linux kunit:' "$err")"
	passed=${result%% *} skipped=${result##* } failed=${result#* }
	failed=${failed%% *}
	expect_err '^csan-vmm: Linux rebooted'
	# hw mode was on: KCSAN's watchpoints were followed and backed.
	expect_linux_backing
	# Nothing lost: the summary counts every KCSAN block on the console
	# plus each race the host saw that Linux did not report (those it did
	# are merged into Linux's), and the JSON holds every report printed.
	# Each printed once: a note on stdout in each block's place.
	expect_reports_once hw
	blocks=$reports
	host=$(sed -n "s/.* \([0-9]*\) host reports, \([0-9]*\) merged with Linux's own.*/\1 \2/p" "$err")
	summary=$(sed -n 's/^csan-vmm: race summary: .* in \([0-9]*\) reports\{0,1\}, \([0-9]*\) printed.*/\1 \2/p' "$err")
	# A part may provoke no report at all (test_at*'s cases race only
	# with marked accesses, and the others' races may all be missed);
	# then the summary says so instead.
	[ -n "$summary" ] || ! grep -q '^csan-vmm: guest finished, no races reported$' "$err" || summary='0 0'
	[ -n "$host" ] && [ -n "$summary" ] || fail "part $glob: no race summary or no count of host reports"
	host_only=$((${host% *} - ${host#* }))
	[ "${summary% *}" = $((blocks + host_only)) ] ||
		fail "part $glob: $blocks KCSAN reports on the console and $host_only the host saw alone, but ${summary% *} in the summary"
	json=$(grep -c '"type":"report"' "$work/r.json")
	[ "$json" = "${summary#* }" ] || fail "part $glob: ${summary#* } reports printed, $json in --report-json"
	! grep -q 'could not be read' "$err" || fail "part $glob: a KCSAN report was lost"
	total_reports=$((total_reports + blocks))
	[ "$failed" = 0 ] || fail "part $glob: $failed cases failed in hw mode: $(failed_cases | tr '\n' ' ')"
	[ $((passed + skipped)) = "$want" ] || fail "part $glob: $passed passed and $skipped skipped of $want cases"
	echo "part $glob: $passed passed, $skipped skipped, $blocks KCSAN reports on the console, $host_only more by the host alone"
	total_passed=$((total_passed + passed))
	total_skipped=$((total_skipped + skipped))
done
[ "$total_passed" = 28 ] && [ "$total_skipped" = 1 ] ||
	fail "hw mode: $total_passed passed, $total_skipped skipped; soft mode passes 28, skips 1"
[ "$total_reports" -gt 0 ] || fail "the suite provoked no KCSAN report in hw mode"
# Reports stay symbolized against the vmlinux in hw mode (the last part's).
expect_err "^ test_kernel_[a-z_0-9]+\\+0x[0-9a-f]+/0x[0-9a-f]+ $f\$"
echo "KUnit kcsan in hw mode: $total_passed passed, $total_skipped skipped, $total_reports KCSAN reports"
