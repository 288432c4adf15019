# status-line.sh: the live status line.  With stderr on a terminal (a pty
# from util-linux script) it is drawn in place with \r and erased again;
# with stderr in a file, with --quiet or with TERM=dumb it is never drawn.  Directly on
# this machine only: the emulated host's relay gives csan-vmm no terminal.
. "$top_srcdir/tests/lib.sh"
[ "$CSAN_TEST_ENV" = direct ] || skip "the emulated host gives csan-vmm no terminal"
require_vm_env
command -v script >/dev/null 2>&1 || skip "util-linux script not found (apt-get install bsdutils)"
# hang keeps the console quiet, so the line is drawn until the timeout.
args="--scenario=hang --timeout=4 --seed=14"
cr=$(printf '\r')
esc=$(printf '\033')

# script's -e returns the command's status; its log of the pty is the
# transcript.  TERM=${2:-xterm}: make check may run without one.
pty_run() {
	TERM=${2:-xterm} script -qec "$1" "$work/typescript" >/dev/null 2>&1 </dev/null
	rc=$?
	cp "$work/typescript" "$err"
}

pty_run "'$VMM' $args >/dev/null"
expect_rc 4
grep -q "${cr}${esc}\\[Kcsan-vmm: [0-9]*\\.[0-9] s, [0-9]* watchpoints/s, 0 races" "$err" ||
	fail "no status line drawn on a terminal"
# Erased before the timeout message, which starts at column 0.
grep -q "${cr}${esc}\\[Kcsan-vmm: guest still running after --timeout=4 s" "$err" ||
	fail "the status line was not erased before the next message"

pty_run "'$VMM' --quiet $args >/dev/null"
expect_rc 4
! grep -q "watchpoints/s" "$err" || fail "status line drawn with --quiet"

pty_run "'$VMM' $args >/dev/null" dumb
expect_rc 4
! grep -q "watchpoints/s" "$err" || fail "status line drawn with TERM=dumb"

run_vmm $args
expect_rc 4
! grep -q "watchpoints/s" "$err" || fail "status line drawn with stderr not a terminal"
! grep -q "$cr" "$err" || fail "carriage return in stderr that is not a terminal"
