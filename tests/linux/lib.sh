# tests/linux/lib.sh: helpers for the Linux guest tests (sourced after
# tests/lib.sh).  They boot tools/linux's KCSAN test kernel, built once per
# machine and cached (tools/linux/build-vmlinux.sh), inside the emulated
# host: this machine's PVM /dev/kvm cannot run Linux (HOST-FACTS), and the
# KUnit suite needs 4 vCPUs, which the emulated host gives csan-vmm on 2.

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
	reason=$("$EMUHOST" --check 2>&1) ||
		skip "emulated host unavailable: $reason (Linux guests run there only)"
	vmlinux=$("$top_srcdir/tools/linux/build-vmlinux.sh" -q 2>"$work/build.err")
	case $? in
	0) ;;
	77) skip "cannot build the Linux test kernel: $(tail -n 1 "$work/build.err")" ;;
	*) cat "$work/build.err"; fail "tools/linux/build-vmlinux.sh failed" ;;
	esac
}

# run_linux ARGS...: csan-vmm ARGS /csan/vmlinux in the emulated host;
# sets $rc and fills $out/$err.
run_linux() {
	"$EMUHOST" $LINUX_EMUHOST_ARGS --timeout "$VMM_WALL_LIMIT" --file "$VMM" \
		--file "$vmlinux" -- csan-vmm --cpus=4 --memory=512M \
		--timeout="$LINUX_TIMEOUT" "$@" /csan/vmlinux >"$out" 2>"$err"
	rc=$?
	[ "$rc" != 125 ] || fail "the emulated host failed to run csan-vmm"
}
