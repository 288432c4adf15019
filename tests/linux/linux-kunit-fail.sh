# linux-kunit-fail.sh: a KUnit case that fails ends the run with status 5
# (workload-failed), after an orderly reboot, and the closing summary line
# and the --report-json exit record carry KUnit's counts.  KCSAN left off
# at boot (kcsan.early_enable=0) sets no watchpoint, so KCSAN's test_basic,
# which waits for the report of its race, fails every time, whatever the
# machine's speed.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/linux/lib.sh"
require_linux
run_linux --report-json="$work/r.json" \
	-a "kunit.filter_glob=kcsan.test_basic kunit_shutdown=reboot kcsan.early_enable=0"
expect_rc 5
[ "$(ktap_cases 'not ok' "$out")" = test_basic ] || fail "KUnit's own output has no 'not ok N test_basic'"
expect_err '^linux kunit: kcsan: 0 passed, 1 failed, 0 skipped$'
expect_err '^csan-vmm: Linux rebooted'
expect_err '^csan-vmm: exit status 5 \(workload-failed\): 0 race reports; workload: none; KUnit: 0 passed, 1 failed, 0 skipped$'
grep -q '^{"type":"exit","status":5,"word":"workload-failed","end":"exit","mode":"soft","reports":0,"workload_status":null,"workload_expected":false,"kunit":{"suites":1,"passed":0,"failed":1,"skipped":0,"incomplete":0}}$' \
	"$work/r.json" || fail "no JSON exit record with status 5 and KUnit's counts: $(cat "$work/r.json")"
