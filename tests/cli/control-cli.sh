# control-cli.sh: --control and --send without a VM: a path that is not a
# socket is refused before anything boots, a client with nobody to talk to
# says so with status 2, and a long command or socket path is refused.
# (Stale and busy sockets: tests/vm/control-socket.sh.)
. "$top_srcdir/tests/lib.sh"

run_cli() {
	# --host=kvm: where a socket can be served; the emulated host's refusal
	# of --control is tests/cli/host-option.sh.
	"$VMM" --host=kvm "$@" </dev/null >"$out" 2>"$err"
	rc=$?
}

touch "$work/file"
run_cli --control="$work/file" --scenario=selftest
expect_rc 2
expect_err "^csan-vmm: --control: '$work/file' exists and is not a socket; remove it or choose another path$"
[ -f "$work/file" ] || fail "the non-socket file was removed"

run_cli --control="$work/none.sock" --send=stats
expect_rc 2
expect_err "^csan-vmm: --control: cannot connect to '$work/none.sock': .*is a csan-vmm started with --control=$work/none.sock running"

run_cli --control="$work/none.sock" --send="set skip_watch $(printf '%0300d' 1)"
expect_rc 2
expect_err '^csan-vmm: --send: give one command of at most 256 bytes'

long=$work/$(printf '%0120d' 0)
run_cli --control="$long" --scenario=selftest
expect_rc 2
expect_err "^csan-vmm: --control: '.*' is [0-9]+ bytes long; a UNIX socket path must be shorter than 108"
