# tests/linux/workload-lib.sh: helpers for the --run/--add/--initrd tests
# (sourced after tests/lib.sh and tests/linux/lib.sh).  They boot the
# second test kernel (tools/linux/build-vmlinux.sh --config=workload: a
# bzImage with initramfs support) as a user would, from its build tree,
# with --host=auto (the emulated host here).

# require_workload_kernel: set $kernel to the second test kernel's
# bzImage, in its build tree.  Until that kernel is wired into this tree
# (require_linux_workload), the emulated host's own kernel stands in:
# Debian's cloud kernel, a distribution bzImage with initramfs support,
# which the harness keeps in its cache; it runs without symbols (csan-vmm
# says so in one line).
require_workload_kernel() {
	if command -v require_linux_workload >/dev/null 2>&1; then
		require_linux_workload
		kernel=$bzimage
	else
		require_emulated_host
		for c in "${CSAN_HARNESS_CACHE:-/var/cache/csan-vmm/harness}" \
			"${HOME:-/nonexistent}/.cache/csan-vmm/harness"; do
			kernel=$c/current/vmlinuz
			[ -r "$kernel" ] && break
		done
		echo "no second test kernel in this tree: booting the emulated host's $kernel"
	fi
	[ -r "$kernel" ] || fail "no kernel at $kernel"
	wl_tmp="$work/tmpdir"
	mkdir -p "$wl_tmp"
}

# run_workload ARGS...: csan-vmm ARGS KERNEL with TMPDIR=$wl_tmp (where
# the emulated host's copy of the archive goes), on 2 vCPUs; sets $rc and
# fills $out/$err; then nothing of csan-vmm's may be left in $wl_tmp.
run_workload_once() {
	TMPDIR="$wl_tmp" timeout "$VMM_WALL_LIMIT" "$VMM" --cpus=2 --memory=256M \
		--timeout="$LINUX_TIMEOUT" "$@" "$kernel" </dev/null >"$out" 2>"$err"
	rc=$?
	[ "$rc" != 124 ] || fail "csan-vmm still running after ${VMM_WALL_LIMIT}s"
}
run_workload() {
	retry_nested_state_lost run_workload_once "$@"
	left=$(ls -A "$wl_tmp")
	[ -z "$left" ] || fail "csan-vmm left $left in TMPDIR"
}

# expect_workload STATUS CMD: csan-vmm said CMD exited with STATUS, and
# ended as documented: STATUS 0 gives 0 (1 when Linux's KCSAN reported a
# race on the way), any other gives 5.
expect_workload() {
	expect_err "^csan-vmm: workload: '$(printf '%s' "$2" | sed 's/[][\.*^$+?(){}|]/\\&/g')' exited with status $1\$"
	[ "$(grep -c '^csan-vmm: workload: ' "$err")" = 1 ] || fail "not one workload status line"
	if [ "$1" != 0 ]; then
		expect_rc 5
	elif grep -q 'BUG: KCSAN: ' "$out"; then
		expect_rc 1
	else
		expect_rc 0
	fi
}
