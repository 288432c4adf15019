# disk-refused.sh: --disk's bad input, before anything boots: each gets
# one line naming --disk and the file, what is wrong and what to do, exit
# status 2, and nothing is left behind (the harness is never started).
. "$top_srcdir/tests/lib.sh"
# csan-vmm picks the emulated host here when /dev/kvm cannot run Linux; the
# checks come first either way.  --guest=linux makes the bundled guest's
# ELF stand for a Linux kernel: it is opened, never booted.
refused() {
	start=$(date +%s)
	"$VMM" --timeout=5 "$@" >"$out" 2>"$err"
	rc=$?
	expect_rc 2
	# A usage error adds the house's pointer to --help.
	[ "$(grep -vc "^Try 'csan-vmm --help'" "$err")" = 1 ] || fail "more than one line on stderr"
	[ $(($(date +%s) - start)) -lt 5 ] || fail "the check waited for a boot"
}

# The bundled guest has no virtio driver.
refused --disk="$work/none.img" "$GUEST"
expect_err '^csan-vmm: --disk: a csan guest has no virtio driver .*--disk is for Linux guests'

refused --guest=linux --disk="$work/missing.img" "$GUEST"
expect_err "^csan-vmm: --disk: cannot open $work/missing.img: No such file or directory; give a raw disk image\$"

refused --guest=linux --disk="$work" "$GUEST"
expect_err "^csan-vmm: --disk: (cannot open $work|$work is not a regular file)"

printf 'x' >"$work/odd.img"
refused --guest=linux --disk="$work/odd.img" "$GUEST"
expect_err "^csan-vmm: --disk: $work/odd.img is 1 bytes, not a whole number of 512-byte sectors; pad it"

refused --guest=linux --disk="$work/a.img" --disk="$work/b.img" "$GUEST"
expect_err '^csan-vmm: --disk: only 1 disk per run; drop --disk='

# A file csan-vmm may not write: refused for writing, taken with ,ro (as
# an unprivileged user; root writes anything).
truncate -s 1M "$work/ro.img"
chmod 444 "$work/ro.img"
as_user="" vmm=$VMM guest=$GUEST
if [ "$(id -u)" = 0 ]; then
	command -v setpriv >/dev/null || skip "running as root without setpriv to drop privileges"
	chmod 755 "$work"
	as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
	# A build tree in a private directory (mktemp -d's 0700) is out of
	# nobody's reach: the two files this run needs are copied beside the
	# image.
	if ! $as_user test -x "$VMM" || ! $as_user test -r "$GUEST"; then
		vmm=$work/csan-vmm.copy guest=$work/guest.copy
		cp "$VMM" "$vmm" && cp "$GUEST" "$guest" && chmod 755 "$vmm" && chmod 644 "$guest" ||
			fail "cannot copy csan-vmm and the guest into $work"
	fi
	$as_user test -x "$vmm" || skip "user nobody cannot run $vmm"
fi
start=$(date +%s)
$as_user "$vmm" --guest=linux --disk="$work/ro.img" "$guest" >"$out" 2>"$err"
rc=$?
rm -f "$work/csan-vmm.copy" "$work/guest.copy"
expect_rc 2
expect_err "^csan-vmm: --disk: cannot open $work/ro.img for writing: Permission denied; make it writable, or add ,ro to attach it read-only\$"
[ -z "$(ls -A "$work" | grep -v -e '^stdout$' -e '^stderr$' -e '\.img$')" ] || fail "files left behind: $(ls -A "$work")"
echo "ok: every bad --disk refused in one line, status 2"
