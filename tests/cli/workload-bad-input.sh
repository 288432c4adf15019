# workload-bad-input.sh: --run, --add and --initrd refused before anything
# boots, one line each naming the option, the file and what to do, exit
# status 2, and nothing left in $TMPDIR (the emulated host's archive is
# built there).  No KVM and no Linux kernel needed: the checks come first.
. "$top_srcdir/tests/lib.sh"

tmp="$work/tmpdir"
mkdir "$tmp"
echo hi >"$work/file"

# run_bad ARGS...: csan-vmm with TMPDIR=$tmp must end 2 within 5 s.
run_bad() {
	start=$(date +%s)
	TMPDIR="$tmp" timeout 60 "$VMM" "$@" >"$out" 2>"$err"
	rc=$?
	expect_rc 2
	[ $(($(date +%s) - start)) -lt 5 ] || fail "$* took more than 5 s: something booted"
	[ "$(wc -l <"$err")" -le 2 ] || fail "$* said more than a line and the --help pointer"
	[ -z "$(ls -A "$tmp")" ] || fail "$* left $(ls -A "$tmp") in TMPDIR"
}

run_bad --run=true --add="$work/no-such-file"
expect_err "^csan-vmm: --add=$work/no-such-file: $work/no-such-file: No such file or directory; give an existing file or directory$"

run_bad --run=true --add="$work/file:../etc/passwd"
expect_err "^csan-vmm: --add=$work/file:../etc/passwd: GUESTPATH '../etc/passwd' has a '..' and would leave the guest's root; give a path without '..'$"
run_bad --run=true --add="$work/file:/bin/../../x"
expect_err "GUESTPATH '/bin/../../x' has a '..'"

run_bad --run=true --initrd="$work/no-such.cpio"
expect_err "^csan-vmm: --initrd=$work/no-such.cpio: No such file or directory; give a cpio archive \(compressed or not\)$"
run_bad --initrd="$work"
expect_err "^csan-vmm: --initrd=$work: not a regular file; give a cpio archive$"

run_bad --add="$work/file"
expect_err "^csan-vmm: --add: the files are for --run's command; add --run=CMD \(--run=sh for a shell on the console\)$"

run_bad --run=
expect_err "^csan-vmm: --run: give a command, e.g. --run='uname -a'$"

run_bad --run=true --add=":/x"
expect_err "^csan-vmm: --add=:/x: give HOSTPATH or HOSTPATH:GUESTPATH \(neither may be empty\)$"

# The bundled guest has no user space: said before the emulated host is asked for.
[ -f "$GUEST" ] || fail "$GUEST is not built"
run_bad --run=true
expect_err "^csan-vmm: --run: $GUEST is a csan guest, which has no user space; give a Linux kernel \(bzImage or vmlinux\)$"
run_bad --initrd="$work/file"
expect_err "^csan-vmm: --initrd: .* is a csan guest, which has no user space"

# With --compare too (which runs a workload once per mode on a Linux guest).
run_bad --run=true --compare
expect_err "^csan-vmm: --run: $GUEST is a csan guest, which has no user space"
exit 0
