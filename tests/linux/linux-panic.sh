# linux-panic.sh: a Linux panic ends the run with status 3 (crash) and the
# panic text kept, and the closing summary line says so.  With KUnit off and no initramfs, the kernel finds no init.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/linux/lib.sh"
require_linux
run_linux -a kunit.enable=0
expect_rc 3
expect_out 'Kernel panic - not syncing: No working init found'
expect_err 'csan-vmm: Linux panicked: Kernel panic - not syncing: No working init found'
expect_err 'booting .*vmlinux \(linux guest\)'
expect_err '^csan-vmm: exit status 3 \(crash\): [0-9]+ race reports?; workload: none; KUnit: none$'
