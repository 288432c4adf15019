# race-test-compare.sh: --compare on a Linux guest (issue 15): the test
# kernel's built-in race test (csan_race_test=1) run once in soft mode and
# once in hw mode, same command line, on 2 vCPUs; the table shows what each
# mode found.  hw mode names what soft mode cannot (race-test-soft.sh,
# race-test-hw.sh): the uninstrumented writer, seen by a host debug
# register, and the uninstrumented irq_work handler on the watcher's own
# CPU, hw only; the race-free pairs are in neither mode's rows.
. "$top_srcdir/tests/lib.sh"
LINUX_TIMEOUT=${LINUX_TIMEOUT:-600}
. "$top_srcdir/tests/linux/lib.sh"
linux_cpus=2
require_linux

run_linux --compare -a "kunit.enable=0 kunit_shutdown=reboot csan_race_test=1"
expect_rc 1
expect_err '^csan-vmm: --compare: scenario \(default\) in soft mode$'
expect_err '^csan-vmm: --compare: scenario \(default\) in hw mode$'
# Both runs ran the race test to its end.
[ "$(tr -d '\r' <"$out" | grep -c '^csan-race-test: done$')" = 2 ] ||
	fail "the race test did not finish in both modes"
# A table row: scenario, soft count, first, seen by, hw count, first, seen by, title.
row() { tr -d '\r' <"$out" | grep -E "^  \\(default\\) +$1 +$2\$"; }
num='[0-9]+ +[0-9.]+s'
none='- +- +-'
# (a) The uninstrumented writer: in hw mode by a debug register; soft mode
# at most saw its reader one-sided (KCSAN's unknown origin), shown as
# "unseen" when paired with hw mode's row, or not at all.
row "($num +unseen|$none) +$num +debug-register" \
	'data-race in race_test_instr_read / race_test_uninstr_write' >/dev/null ||
	fail "no row for the uninstrumented writer found by hw mode's debug registers"
# (b) The handler on the watcher's own CPU: hw mode only.
row "$none +$num +debug-register" \
	'data-race in race_test_irq_task_write / race_test_uninstr_irq_read' >/dev/null ||
	fail "no hw-only row for the irq_work handler by interrupt"
# (c) The race-free pairs: in no row.
for f in race_test_marked_read race_test_marked_write race_test_locked_read race_test_locked_inc; do
	! tr -d '\r' <"$out" | grep -q "^  (default) .*$f" ||
		fail "a row names $f: $(tr -d '\r' <"$out" | grep "^  (default) .*$f" | head -n 1)"
done
expect_out '^        found by both [0-9]+( \([0-9]+ of them one-sided in one mode\))?, soft only [0-9]+, hw only [1-9][0-9]*; hw/soft slowdown [0-9.]+x wall'
