# linux-disk.sh: --disk on the workload kernel (virtio-blk over
# virtio-mmio): an ext2 image with busybox is the root file system; the
# guest reads a pattern the host put at a known offset, writes another at
# a known offset and a file on the file system, and powers off; the host
# then finds both in the image.  The same image with ,ro: the guest sees
# the pattern, its writes are refused, and the image is unchanged.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/linux/lib.sh"
command -v require_linux_workload >/dev/null 2>&1 ||
	skip "needs require_linux_workload in tests/linux/lib.sh (the workload kernel's branch)"
require_linux_workload
# The bzImage, as a user boots it (run_linux boots $vmlinux); its vmlinux
# beside it gives the symbols.
vmlinux=$bzimage
linux_cpus=2
[ -x /bin/busybox ] && ! ldd /bin/busybox >/dev/null 2>&1 ||
	skip "no static /bin/busybox (apt-get install busybox-static)"
command -v mke2fs >/dev/null && command -v debugfs >/dev/null ||
	skip "no mke2fs/debugfs (apt-get install e2fsprogs)"

# The image: 16 MiB, an ext2 file system in its first 8 MiB, raw sectors after.
IN_SECTOR=24576  # 12 MiB: the host's pattern
OUT_SECTOR=26624 # 13 MiB: the guest's
token=$$-$(date +%s)
root=$work/root
mkdir -p "$root/bin" "$root/dev" "$root/proc"
cp /bin/busybox "$root/bin/busybox"
# The kernel hands unknown name=value words of its command line to init's
# environment: csan_disk_token says what to write.
cat >"$root/init" <<'INIT'
#!/bin/busybox sh
bb=/bin/busybox
$bb mount -t proc proc /proc
$bb mount -t devtmpfs dev /dev
echo "disk-test: read '$($bb dd if=/dev/vda bs=512 skip=24576 count=1 2>/dev/null | $bb head -n 1)'"
if echo "csan-disk-out-$csan_disk_token" |
	$bb dd of=/dev/vda bs=512 seek=26624 count=1 conv=notrunc,sync 2>/dev/null &&
	echo "csan-disk-file-$csan_disk_token" >/disk-test-file 2>/dev/null && $bb sync; then
	echo "disk-test: wrote"
else
	echo "disk-test: write refused"
fi
$bb poweroff -f
INIT
chmod 755 "$root/init"
img=$work/disk.img
truncate -s 16M "$img"
mke2fs -q -F -t ext2 -d "$root" "$img" 8M || fail "mke2fs -d could not build the image"
printf 'csan-disk-in-%s\n' "$token" | dd of="$img" bs=512 seek=$IN_SECTOR conv=notrunc 2>/dev/null
cp "$img" "$work/before.img"

# Read-write: the pattern is read, the guest's writes land in the file.
run_linux --disk="$img" -a "root=/dev/vda rw init=/init csan_disk_token=$token"
expect_status_by_races
expect_out "^disk-test: read 'csan-disk-in-$token'"
expect_out '^disk-test: wrote'
got=$(dd if="$img" bs=512 skip=$OUT_SECTOR count=1 2>/dev/null | head -n 1 | tr -d '\0')
[ "$got" = "csan-disk-out-$token" ] || fail "sector $OUT_SECTOR of the image holds '$got', not the guest's pattern"
got=$(debugfs -R 'cat /disk-test-file' "$img" 2>/dev/null)
[ "$got" = "csan-disk-file-$token" ] || fail "the guest's file on the image holds '$got'"
echo "read-write: the guest read the host's pattern; its raw write and its file are in the image"

# Read-only: the same reads, every write refused, the image as it was.
cp "$work/before.img" "$img"
run_linux --disk="$img,ro" -a "root=/dev/vda rw init=/init csan_disk_token=$token"
expect_status_by_races
expect_out "^disk-test: read 'csan-disk-in-$token'"
expect_out '^disk-test: write refused'
cmp -s "$img" "$work/before.img" || fail "the ,ro image changed"
echo "read-only: the guest read the pattern, its writes were refused, the image is unchanged"
