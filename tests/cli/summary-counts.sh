# summary-counts.sh: the suite's closing line (tests/summary.sh, which
# tools/check.sh and so CI end on) counts only this run's results and
# fails what would otherwise pass unseen: a listed test with no result, a
# result older than the run, a list that names no test, a part whose every
# test skipped (for want of /dev/kvm only where the machine lacks it), a
# step that failed outside the tests.  The harness's re-runs are counted.
. "$top_srcdir/tests/lib.sh"
summary="$top_srcdir/tests/summary.sh"
tree="$work/build"

# result TEST RESULT [LOG-LINE...]: TEST's .trs and .log, as Automake writes them.
result() {
	t=$1 r=$2
	shift 2
	mkdir -p "$tree/$(dirname "$t")"
	echo ":test-result: $r" >"$tree/${t%.sh}.trs"
	{
		for l in "$@"; do echo "$l"; done
		echo "$r: $t"
	} >"$tree/${t%.sh}.log"
}

# closing ARGS...: summary.sh's last line and status.
closing() {
	sh "$summary" "$@" >"$out" 2>"$err"
	rc=$?
	last=$(tail -n 1 "$out")
}

expect_closing() {
	[ "$last" = "$1" ] || fail "closing line '$last', expected '$1'"
}

sleep 1
touch "$work/stamp"
sleep 1
result tests/a/one.sh PASS
result tests/a/two.sh PASS "emulated-host fault, run again: run 2 of at most 2"
result tests/b/three.sh SKIP "SKIP: no busybox here"
result tests/c/four.sh PASS
printf 'tests/a/one.sh\ntests/a/two.sh\ntests/b/three.sh\ntests/c/four.sh\n' >"$work/list"

# Part b ran nothing but skips for a reason a machine may not have.
closing --since "$work/stamp" "$tree=$work/list"
expect_rc 1
expect_closing "3 passed, 1 failed, 1 skipped, 1 re-run after an emulated-host fault"
expect_out "^failed: $tree: tests/b ran no test: all 1 skipped\$"
expect_out '^not run: 1 test: no busybox here$'

# The same part skipped for want of /dev/kvm: excused only where it is missing.
result tests/b/three.sh SKIP "SKIP: /dev/kvm does not exist (the VM tests run in the emulated host)"
closing --since "$work/stamp" "$tree=$work/list"
if [ -e /dev/kvm ]; then
	expect_rc 1
	expect_out "^failed: $tree: tests/b ran no test"
else
	expect_rc 0
	expect_closing "3 passed, 0 failed, 1 skipped, 1 re-run after an emulated-host fault"
fi
result tests/b/three.sh PASS

# Every result of this run, nothing else.
closing --since "$work/stamp" "$tree=$work/list"
expect_rc 0
expect_closing "4 passed, 0 failed, 0 skipped, 1 re-run after an emulated-host fault"

# A result from before the run's start fails, whatever it says.
touch -d '2000-01-01' "$tree/tests/c/four.trs"
closing --since "$work/stamp" "$tree=$work/list"
expect_rc 1
expect_closing "3 passed, 1 failed, 0 skipped, 1 re-run after an emulated-host fault"
expect_out "^failed: $tree/tests/c/four.trs: left from an earlier run"
result tests/c/four.sh PASS

# A listed test with no result; a result no list names is not counted.
rm "$tree/tests/c/four.trs"
result tests/d/stray.sh FAIL
closing --since "$work/stamp" "$tree=$work/list"
expect_rc 1
expect_closing "3 passed, 1 failed, 0 skipped, 1 re-run after an emulated-host fault"
expect_out "^failed: $tree/tests/c/four.sh: no result"
result tests/c/four.sh PASS

# A failed test shows its log's FAIL line; a failed step counts too.
result tests/c/four.sh FAIL "the guest said nothing"
closing --since "$work/stamp" --step-failed "make check: status 2" "$tree=$work/list"
expect_rc 1
expect_closing "3 passed, 2 failed, 0 skipped, 1 re-run after an emulated-host fault"
expect_out "^failed: $tree/tests/c/four.log: FAIL: tests/c/four.sh\$"
expect_out '^    the guest said nothing$'
expect_out '^failed: make check: status 2$'

# A list that names no test (make list-tests failed) counts nothing, and fails.
printf 'make[1]: Entering directory\n' >"$work/empty"
closing --since "$work/stamp" "$tree=$work/empty"
expect_rc 1
expect_out "^failed: $work/empty: names no test to run in $tree\$"
closing --since "$work/stamp" "$tree=$work/missing"
expect_rc 1
expect_out "^failed: $work/missing: no list of the tests"
exit 0
