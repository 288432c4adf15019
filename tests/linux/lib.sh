# tests/linux/lib.sh: helpers for the Linux guest tests (sourced after
# tests/lib.sh).  They boot tools/linux's KCSAN test kernel, built once per
# machine and cached (tools/linux/build-vmlinux.sh), on this machine's
# /dev/kvm where it is real KVM, else inside the emulated host: PVM's
# /dev/kvm cannot run Linux (HOST-FACTS), so there each test runs once, in
# the emulated host, which gives csan-vmm's 4 vCPUs 2 CPUs.

# The emulated host for a 512 MiB Linux guest on 4 vCPUs.
LINUX_EMUHOST_ARGS="--cpus 2 --memory 3072"
# Longest a Linux run may take in the emulated host (the KUnit suite
# takes minutes there), as csan-vmm's --timeout; the wall limit adds slack.
LINUX_TIMEOUT=${LINUX_TIMEOUT:-1200}
VMM_WALL_LIMIT=$((LINUX_TIMEOUT + 120))

# require_linux: skip unless the emulated host runs here; build or find
# the test kernel and set $vmlinux.  A machine that cannot build it (no
# Debian archive, no compiler tools) skips with the script's reason.
require_linux() {
	if [ -r /dev/kvm ] && [ -w /dev/kvm ] && [ ! -e /sys/module/kvm_pvm ]; then
		linux_env=direct
	else
		linux_env=emuhost
		reason=$("$EMUHOST" --check 2>&1) ||
			skip "no KVM here that runs Linux (PVM's does not) and the emulated host is unavailable: $reason"
	fi
	vmlinux=$("$top_srcdir/tools/linux/build-vmlinux.sh" -q 2>"$work/build.err")
	case $? in
	0) ;;
	77) skip "cannot build the Linux test kernel: $(tail -n 1 "$work/build.err")" ;;
	*) cat "$work/build.err"; fail "tools/linux/build-vmlinux.sh failed" ;;
	esac
}

# run_linux ARGS...: csan-vmm --cpus=4 ARGS VMLINUX where require_linux
# chose; sets $rc and fills $out/$err.
run_linux() {
	if [ "$linux_env" = direct ]; then
		timeout "$VMM_WALL_LIMIT" "$VMM" --cpus=4 --memory=512M \
			--timeout="$LINUX_TIMEOUT" "$@" "$vmlinux" </dev/null >"$out" 2>"$err"
		rc=$?
		[ "$rc" != 124 ] || fail "csan-vmm still running after ${VMM_WALL_LIMIT}s"
		return
	fi
	# shellcheck disable=SC2086 # a word list
	"$EMUHOST" $LINUX_EMUHOST_ARGS --timeout "$VMM_WALL_LIMIT" --file "$VMM" \
		--file "$vmlinux" -- csan-vmm --cpus=4 --memory=512M \
		--timeout="$LINUX_TIMEOUT" "$@" /csan/vmlinux >"$out" 2>"$err"
	rc=$?
	[ "$rc" != 125 ] || fail "the emulated host failed to run csan-vmm"
}
