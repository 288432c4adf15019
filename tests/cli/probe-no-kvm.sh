# probe-no-kvm.sh: --probe --host=kvm without /dev/kvm exits 2, says why on stderr and
# still prints the verdict line.  /dev is hidden under an empty tmpfs in a
# private mount namespace, so the test needs unshare(1) to work here.
. "$top_srcdir/tests/lib.sh"
command -v unshare >/dev/null 2>&1 || skip "unshare(1) is not installed (util-linux)"
unshare -rm sh -c 'mount -t tmpfs none /dev' 2>/dev/null ||
	skip "cannot hide /dev in a private mount namespace here (unshare -rm refused)"

unshare -rm sh -c 'mount -t tmpfs none /dev && exec "$0" --probe --host=kvm' "$VMM" >"$out" 2>"$err"
rc=$?
expect_rc 2
expect_err '^csan-vmm: --probe: /dev/kvm does not exist: .*CONFIG_KVM'
expect_out '^hardware-watchpoint mode: unavailable \(/dev/kvm does not exist: '
expect_no_out 'API version'
