# console-escapes.sh: Ctrl-a keys on csan-vmm's standard input: h help,
# s counters, w watch mode, an unknown key, a plain key (dropped, said
# once), x quit with status 0; first from a FIFO with --console-escapes=on,
# then on a terminal (util-linux script(1) makes a pty) in the default
# auto mode, which must leave the terminal as it found it.  A guest that
# finishes by itself ends the run although the key reader still waits.
. "$top_srcdir/tests/lib.sh"
require_vm_env
script_bin=$(command -v script) || skip "util-linux script(1) not found (it provides the pty)"

check_session() {
	expect_out 'csan-vmm: escape keys \(Ctrl-a, then\):'
	expect_out 'csan-vmm: counters: used_watchpoints=[0-9]+ '
	expect_out 'csan-vmm: races so far: 0 reports, 0 distinct'
	if on_pvm; then
		expect_out 'csan-vmm: watch mode stays soft: hardware watchpoints are unavailable on this host: data watchpoints do not fire'
	else
		expect_out 'csan-vmm: watch mode: hw'
	fi
	expect_out "csan-vmm: keys typed here do not reach the guest"
	expect_out 'csan-vmm: unknown escape key'
	expect_out 'csan-vmm: quit \(Ctrl-a x\)'
	expect_out 'csan-vmm: stopped on request \(quit\), 0 race reports'
	expect_out '^vmm rc=0'
	[ "$(grep -c 'do not reach the guest' "$out")" = 1 ] || fail "the dropped-key note is not said exactly once"
}

run_helper console-session exit
expect_rc 0
expect_out '^vmm rc=0$'
expect_out '^csan-result: scenario=selftest status=pass '

run_helper console-session pipe
expect_rc 0
check_session

case "$CSAN_TEST_ENV" in
emuhost)
	# Busybox has no script(1): carry util-linux's, and give it ptys.
	carry "$script_bin"
	run_helper console-pty-setup "$carried"
	;;
*)
	run_helper console-session pty
	;;
esac
expect_rc 0
check_session
# The terminal afterwards: line editing and echo back on.
grep -Eq '(^|[ ;])icanon' "$out" && grep -Eq '(^|[ ;])echo([^a-z]|$)' "$out" ||
	fail "the terminal was left in raw mode"
