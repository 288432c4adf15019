# workload-initrd.sh: --initrd hands the user's cpio archive to the kernel
# (here gzip-compressed, as distributions ship them); with --run,
# csan-vmm's archive follows it, so CMD reads the user's files, and the
# user's own /init does not run (rdinit= points at csan-vmm's).  An
# archive the kernel cannot unpack: its own words repeated at the end,
# status 3 (with nothing unpacked there is no init: the kernel panics).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/linux/lib.sh"
. "$top_srcdir/tests/linux/workload-lib.sh"
command -v cpio >/dev/null || skip "cpio not found (apt-get install cpio)"
command -v gzip >/dev/null || skip "gzip not found"
require_workload_kernel

mkdir -p "$work/root/etc"
echo 'user-archive-data' >"$work/root/etc/csan-user.txt"
printf '#!/bin/sh\necho USER-INIT-RAN\n' >"$work/root/init"
chmod +x "$work/root/init"
(cd "$work/root" && find . | cpio -o -H newc --quiet) | gzip >"$work/user.cpio.gz" ||
	fail "could not make the user archive"

cmd='cat /etc/csan-user.txt; test -x /init && echo user-init-there'
run_workload --initrd="$work/user.cpio.gz" --run="$cmd"
expect_out '^user-archive-data'
expect_out '^user-init-there'
grep -q 'USER-INIT-RAN' "$out" && fail "the user's /init ran instead of csan-vmm's"
expect_err '^csan-vmm: initramfs for --run: [0-9.]+ MiB \(--initrd, 0 --add\) built in [0-9]+ ms$'
expect_workload 0 "$cmd"

head -c 4096 /dev/urandom >"$work/garbage.img"
printf 'XX' | dd of="$work/garbage.img" conv=notrunc status=none # no compressor's magic
run_workload --initrd="$work/garbage.img" --run=true
expect_rc 3
expect_out 'Initramfs unpacking failed: '
expect_err '^csan-vmm: Linux could not unpack the initramfs: Initramfs unpacking failed: '
expect_err '^csan-vmm: Linux panicked: '
exit 0
