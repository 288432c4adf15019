# qemu-pvh.sh: the bundled guest is a standard PVH kernel: it boots under
# qemu-system-x86_64 -kernel (pure emulation, no KVM) and passes selftest.
. "$top_srcdir/tests/lib.sh"

qemu=${QEMU_SYSTEM:-$(command -v qemu-system-x86_64)}
[ -n "$qemu" ] && [ -x "$qemu" ] ||
	skip "qemu-system-x86_64 not found (run tools/install-deps.sh)"

# isa-debug-exit turns the guest's exit status s into QEMU's (s << 1) | 1.
timeout 300 "$qemu" -machine pc -accel tcg -cpu max -smp 2 -m 128M \
	-kernel "$GUEST" -append 'scenario=selftest' \
	-display none -serial "file:$out" -monitor none -no-reboot \
	-device isa-debug-exit,iobase=0xf4,iosize=4 2>"$err"
rc=$?
expect_rc 1
expect_out '^csan-result: scenario=selftest status=pass .*cpus=2( |$)'
