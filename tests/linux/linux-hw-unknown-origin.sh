# linux-hw-unknown-origin.sh: what hw mode adds to a stock Linux KCSAN.
# Linux's own KUnit case test_unknown_origin races test_kernel_read
# against test_kernel_write_uninstrumented, which is __no_kcsan: KCSAN
# alone (soft mode) can only say "race at unknown origin" with the
# reader's stack.  In hw mode csan-vmm backs KCSAN's watchpoints with
# debug registers on every vCPU (src/vmm/guest/linux/linux_watch.c) and names the
# writer with its stack, seen by a host debug register.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/linux/lib.sh"
require_linux
case_args='kunit.filter_glob=kcsan.test_unknown_origin kunit_shutdown=reboot'
f='kernel/kcsan/kcsan_test\.c:[0-9]+'
# The case runs its accesses from its threads and from a timer on their CPUs.
by='(task [0-9]+|interrupt)'

run_linux --watch=soft -a "$case_args"
expect_rc 1
expect_err '^BUG: KCSAN: data-race in test_kernel_read\+0x[0-9a-f]+/0x[0-9a-f]+$'
expect_err "^race at unknown origin, with read to 0x[0-9a-f]+ of 8 bytes by $by on cpu [0-9]+:\$"
! grep -q 'test_kernel_write_uninstrumented' "$err" ||
	fail "soft mode named the uninstrumented writer: KCSAN alone cannot see it"
! grep -q 'KCSAN watchpoints followed' "$err" ||
	fail "soft mode followed KCSAN's watchpoints: the traps belong to hw mode only"
expect_err '^linux kunit: kcsan: 1 passed, 0 failed, 0 skipped$'

# In the emulated host the time budget backs a tenth of KCSAN's
# watchpoints, and the case ends as soon as KCSAN sees its own report.
# Since hw mode arms at KCSAN's delay, after its read, the report KCSAN
# prints first ends the case, and it may come from an unbacked watch
# (1 run of 11 on 2026-12-06), or from a backed one whose writer wrote
# while the registers were being loaded (2026-12-07: most runs, and the
# miss of a loaded machine); so a watch whose value changed with no hit is
# armed if it was not, and KCSAN's delay is called again until the writer
# writes again (delay_return in src/vmm/guest/linux/linux_watch.c).  One
# run: a miss is a failure (issue 25).
run_linux --watch=hw -a "$case_args"
expect_rc 1
expect_err '^BUG: KCSAN: data-race in test_kernel_read / test_kernel_write_uninstrumented$'
in_order "$err" \
	'^BUG: KCSAN: data-race in test_kernel_read / test_kernel_write_uninstrumented$' \
	"^write to 0x[0-9a-f]+ of 8 bytes by $by on cpu [0-9]+:\$" \
	"^ test_kernel_write_uninstrumented\\+0x[0-9a-f]+/0x[0-9a-f]+ $f\$" \
	"^read to 0x[0-9a-f]+ of 8 bytes by $by on cpu [0-9]+:\$" \
	"^ test_kernel_read\\+0x[0-9a-f]+/0x[0-9a-f]+ $f\$" \
	'^Seen by: host debug register \(write\), guest soft watchpoint \(read\)$' ||
	fail "no two-stack report of the uninstrumented writer in hw mode"
# Where each side ran, for the log: the writer is a thread on another CPU
# or a timer on the reader's own.
echo "hw mode: $(sed -n '/^BUG: KCSAN: data-race in test_kernel_read \/ test_kernel_write_uninstrumented$/,/^Seen by: /p' "$err" |
	sed -n 's/^\(write\|read\) to 0x[0-9a-f]* of 8 bytes by \(.*\):$/\1 by \2/p' | head -n 2 | paste -sd ';')"
expect_linux_backing
# KCSAN's own verdict holds in hw mode too, in the same run (it passed in
# 21 of 21 local runs).
expect_err '^linux kunit: kcsan: 1 passed, 0 failed, 0 skipped$'
