# kcsan-user-config.sh: tools/linux/kcsan-user.config, the fragment a user
# applies to their own kernel, does what its header promises on the test
# kernels' Linux source: after `make defconfig kvm_guest.config`,
# merge_config.sh -m and `make olddefconfig`, every option it sets is still
# set (no kernel is built; configuring takes about a minute).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/linux/lib.sh"
workload_kernel
src=$(cat "${workload_vmlinux%/vmlinux}/source-dir")
[ -r "$src/scripts/kconfig/merge_config.sh" ] || fail "no Linux source at $src"
fragment=$top_srcdir/tools/linux/kcsan-user.config
grep -qE '^CONFIG_KCSAN=y$' "$fragment" || fail "$fragment does not turn KCSAN on"

mkdir "$work/o"
kmake() { make -C "$src" O="$work/o" ARCH=x86_64 "$@" >>"$work/config.log" 2>&1; }
kmake defconfig kvm_guest.config || fail "make defconfig kvm_guest.config failed: $(tail -n 5 "$work/config.log")"
(cd "$work/o" && "$src/scripts/kconfig/merge_config.sh" -m .config "$fragment") >>"$work/config.log" 2>&1 ||
	fail "merge_config.sh failed: $(tail -n 5 "$work/config.log")"
kmake olddefconfig || fail "make olddefconfig failed: $(tail -n 5 "$work/config.log")"
n=0
for line in $(grep -E '^CONFIG_[A-Z0-9_]+=' "$fragment"); do
	grep -qx "$line" "$work/o/.config" ||
		fail "olddefconfig dropped $line (now: $(grep "^${line%%=*}[= ]" "$work/o/.config" || echo unset))"
	n=$((n + 1))
done
# What csan-vmm relies on from defconfig and kvm_guest.config.
for line in CONFIG_SERIAL_8250_CONSOLE=y CONFIG_KVM_GUEST=y CONFIG_ACPI=y \
	CONFIG_BLK_DEV_INITRD=y CONFIG_DEVTMPFS=y CONFIG_DEBUG_FS=y CONFIG_VIRTIO_BLK=y \
	CONFIG_UNWINDER_ORC=y; do
	grep -qx "$line" "$work/o/.config" || fail "defconfig kvm_guest.config + the fragment lacks $line"
done
echo "kcsan-user.config: all $n options kept on defconfig kvm_guest.config"
