# emulated-escapes.sh: the Ctrl-a keys reach a csan-vmm running in the
# emulated host (--host=emulated passes our standard input on): help,
# counters, the watch-mode toggle (to hw: the emulated host has it), a
# plain key (dropped, said once), an unknown key, quit with status 0; from
# a FIFO with --console-escapes=on and on a terminal (script(1)) in the
# default auto mode, which must leave the terminal as it found it.  A
# guest that ends by itself ends the run although our input stays open.
. "$top_srcdir/tests/lib.sh"
require_emulated_host
command -v script >/dev/null 2>&1 || skip "util-linux script(1) not found (it provides the pty)"
cat >"$work/vmm-emulated" <<EOS
#!/bin/sh
exec "$VMM" --host=emulated "\$@"
EOS
chmod +x "$work/vmm-emulated"

session() {
	hdir=$(mktemp -d "$work/session.XXXXXX") || exit 99
	timeout "$VMM_WALL_LIMIT" sh "$top_srcdir/tests/helpers/console-session.sh" \
		"$work/vmm-emulated" "$hdir" "$1" </dev/null >"$out" 2>"$err"
	rc=$?
	[ "$rc" != 124 ] || fail "the $1 session still running after ${VMM_WALL_LIMIT}s"
	expect_rc 0
}

check_session() {
	expect_out 'csan-vmm: escape keys \(Ctrl-a, then\):'
	expect_out 'csan-vmm: counters: used_watchpoints=[0-9]+ '
	expect_out 'csan-vmm: watch mode: hw'
	expect_out 'csan-vmm: unknown escape key'
	expect_out 'csan-vmm: quit \(Ctrl-a x\)'
	expect_out 'csan-vmm: stopped on request \(quit\), 0 race reports'
	expect_out '^vmm rc=0'
	[ "$(grep -c 'do not reach the guest' "$out")" = 1 ] ||
		fail "the dropped-key note is not said exactly once"
}

session exit
expect_out '^vmm rc=0$'
expect_out '^csan-result: scenario=selftest status=pass '

session pipe
check_session

session pty
check_session
grep -Eq '(^|[ ;])icanon' "$out" && grep -Eq '(^|[ ;])echo([^a-z]|$)' "$out" ||
	fail "the terminal was left in raw mode"
