# linux-bzimage.sh: the file a kernel build leaves, arch/x86/boot/bzImage,
# boots through the x86 boot protocol: csan-vmm finds the build tree's
# vmlinux by itself and says which; a bzImage alone still boots, with one
# line saying reports stay unsymbolized; a vmlinux of another build is
# refused.  The kernel is the project's second test kernel (ORC, modules,
# initramfs support: tools/linux/workload.config).  With no initramfs and
# no disk it runs until it looks for its root file system and panics,
# which shows the whole boot worked: the command line reached it, it found
# its CPUs and the console.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/linux/lib.sh"

require_linux_workload
linux_cpus=2

# run_kernel KERNEL ARGS...: csan-vmm --host=auto ARGS KERNEL.
run_kernel_once() {
	k=$1
	shift
	timeout "$VMM_WALL_LIMIT" "$VMM" --cpus="$linux_cpus" --memory=256M \
		--timeout="$LINUX_TIMEOUT" "$@" "$k" </dev/null >"$out" 2>"$err"
	rc=$?
	[ "$rc" != 124 ] || fail "csan-vmm still running after ${VMM_WALL_LIMIT}s"
}
run_kernel() {
	retry_nested_state_lost run_kernel_once "$@"
}

# expect_boot_to_root: the kernel booted all the way to mounting its root.
expect_boot_to_root() {
	expect_out 'Linux version 6\.1\.'
	expect_out 'Command line: .*console=ttyS0.*csan_bz_marker=1'
	expect_out "smp: Brought up 1 node, $linux_cpus CPUs"
	expect_rc 3
	expect_err '^csan-vmm: Linux panicked: Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block\(0,0\)$'
	expect_err '^csan-vmm: exit status 3 \(crash\): 0 race reports; workload: none; KUnit: none$'
}

tree_bz=$workload_build/arch/x86/boot/bzImage
[ -r "$tree_bz" ] || fail "no $tree_bz in the workload kernel's build tree"

# 1. From the build tree: its vmlinux found and named.
run_kernel "$tree_bz" --append=csan_bz_marker=1
expect_err "^csan-vmm: symbols from $workload_build/vmlinux \\(the vmlinux of $tree_bz's build; --vmlinux to choose\\)\$"
expect_err "^csan-vmm: booting ($tree_bz|/csan/guest/bzImage) \\(linux guest\\)"
expect_boot_to_root

# 2. Alone: boots, and one line says how to get symbols.
cp "$tree_bz" "$work/bzImage"
run_kernel "$work/bzImage" --append=csan_bz_marker=1
[ "$(grep -c 'no vmlinux found' "$err")" = 1 ] || fail "not one 'no vmlinux found' line"
expect_err "^csan-vmm: warning: no vmlinux found for $work/bzImage \\(looked for .*\\): reports stay unsymbolized; give --vmlinux=PATH"
expect_boot_to_root

# 3. Another build's vmlinux (the KCSAN test kernel's) is refused before boot.
require_linux
"$VMM" --vmlinux="$vmlinux" "$tree_bz" </dev/null >"$out" 2>"$err"
rc=$?
expect_rc 2
expect_err "^csan-vmm: $vmlinux is not the vmlinux of $tree_bz: its banner says \"Linux version 6\\.1\\."
expect_no_out
exit 0
