# host-option.sh: --host without a VM: a bad value is refused naming the
# choices, and --control, which cannot cross into the emulated host, is
# refused there with what to do instead, before anything boots.
. "$top_srcdir/tests/lib.sh"
"$VMM" --host=qemu >"$out" 2>"$err"
rc=$?
expect_rc 2
expect_err "^csan-vmm: --host: 'qemu' is not auto, kvm or emulated$"
"$VMM" --host=emulated --control="$work/c.sock" --scenario=selftest >"$out" 2>"$err"
rc=$?
expect_rc 2
expect_err '^csan-vmm: --control: not available in the emulated host, .*Ctrl-a keys.*--host=kvm'
[ ! -e "$work/c.sock" ] || fail "a socket was created"
# A typo in a scenario name costs no boot of the emulated host.
start=$(date +%s)
"$VMM" --host=emulated --scenario=no-such-row >"$out" 2>"$err"
rc=$?
expect_rc 2
expect_err "has no scenario 'no-such-row'"
[ $(($(date +%s) - start)) -lt 3 ] || fail "the scenario check waited for the emulated host"
