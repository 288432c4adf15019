# workload-kernel.sh: the second test kernel (build-vmlinux.sh
# --config=workload) is what it says, seen under qemu-system-x86_64 -accel
# tcg alone (no csan-vmm): its bzImage boots with a gzip initramfs made
# here (Debian's busybox-static, a glibc-dynamic program with threads,
# epoll, timerfd, eventfd and signalfd, the installed modules), the init
# mounts proc, sysfs, devtmpfs, debugfs and tmpfs, and then
#   insmod csan_race_test.ko csan_race_test=1   runs every race-test case,
#     KCSAN reporting the control racy-plain with both stacks;
#   rmmod csan_race_test, and insmod with an unknown case fails;
#   modprobe kcsan_test (torture.ko first, by modules.dep) runs KCSAN's
#     KUnit suite: KTAP with no failed case;
#   poweroff ends QEMU.
# Its vmlinux has ORC tables, DWARF and no frame pointers, its console no
# timestamps.  (Its vmlinux does not boot by PVH: workload.config says
# why.)
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/linux/lib.sh"
workload_kernel
# The KUnit cases wait a fixed guest time for KCSAN's report, and one case
# (test_assert_exclusive_access_writer) needs a pair the case before it may
# have just printed, so about 500 ms of its window are left for it whatever
# REPORT_ONCE_IN_MS is (tests/linux/linux-kunit.sh says how).  On QEMU's
# multi-threaded TCG, guest time is the host's clock: a busy host starves
# the vCPUs inside that window, and a CI run failed the case so
# (2026-12-07).  So QEMU runs with -icount: guest time advances with the
# instructions run (8 ns each, shift=3), the same whatever else the host
# does, and idle time is skipped (sleep=off).  The vCPUs then share one
# host thread, and the boot takes about 30 s instead of 76.
qemu=${QEMU_SYSTEM:-qemu-system-x86_64}
command -v "$qemu" >/dev/null 2>&1 || skip "$qemu not found (tools/install-deps.sh installs it)"
busybox=/bin/busybox
[ -x "$busybox" ] && ! readelf -l "$busybox" | grep -q 'INTERP' ||
	skip "no static $busybox (tools/install-deps.sh installs busybox-static)"
command -v cpio >/dev/null 2>&1 || skip "no cpio (tools/install-deps.sh installs it)"
cc=${CC:-cc}
command -v "$cc" >/dev/null 2>&1 || skip "no C compiler ($cc) for the glibc program"

# --- the kernel's own files --------------------------------------------
cfg=${workload_vmlinux%/vmlinux}/config
for opt in CONFIG_UNWINDER_ORC=y CONFIG_MODULES=y CONFIG_KCSAN_KUNIT_TEST=m \
	CONFIG_BLK_DEV_INITRD=y CONFIG_VIRTIO_MMIO_CMDLINE_DEVICES=y CONFIG_VIRTIO_BLK=y; do
	grep -qx "$opt" "$cfg" || fail "$cfg lacks $opt"
done
for opt in CONFIG_FRAME_POINTER CONFIG_RANDOMIZE_BASE CONFIG_PRINTK_TIME; do
	! grep -q "^$opt=" "$cfg" || fail "$cfg has $(grep "^$opt=" "$cfg")"
done
readelf -S -W "$workload_vmlinux" >"$work/sections"
for s in .orc_unwind .orc_unwind_ip .debug_info; do
	grep -qF " $s " "$work/sections" || fail "$workload_vmlinux has no $s section"
done
readelf -S -W "$workload_modules/kernel/kernel/csan-race-test-module/csan_race_test.ko" |
	grep -qF ' .debug_info ' || fail "csan_race_test.ko has no DWARF"

# --- the initramfs ---------------------------------------------------------
root=$work/root
mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev" "$root/tmp" "$root/lib/modules"
cp "$busybox" "$root/bin/busybox"
for applet in $("$busybox" --list); do
	[ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done
cp -R "$workload_modules" "$root/lib/modules/"

# Threads (futex), epoll, timerfd, eventfd, signalfd: what a glibc test
# program or stress tool calls and tinyconfig leaves out.
cat >"$work/glibc-test.c" <<'EOF'
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

static int efd;

static void *poke(void *arg)
{
	uint64_t one = 1;

	(void)arg;
	return write(efd, &one, sizeof(one)) == sizeof(one) ? arg : NULL;
}

int main(void)
{
	struct itimerspec its = { .it_value = { .tv_nsec = 1000000 } };
	struct epoll_event ev = { .events = EPOLLIN }, got[2];
	int ep, tfd, sfd, n = 0, tries;
	pthread_t t;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	efd = eventfd(0, 0);
	tfd = timerfd_create(CLOCK_MONOTONIC, 0);
	sfd = signalfd(-1, &set, 0);
	ep = epoll_create1(0);
	if (efd < 0 || tfd < 0 || sfd < 0 || ep < 0 || timerfd_settime(tfd, 0, &its, NULL))
		return perror("glibc-test: a call failed"), 1;
	ev.data.fd = efd;
	epoll_ctl(ep, EPOLL_CTL_ADD, efd, &ev);
	ev.data.fd = tfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev);
	if (pthread_create(&t, NULL, poke, NULL) || pthread_join(t, NULL))
		return fputs("glibc-test: no thread\n", stderr), 1;
	for (tries = 0; tries < 10 && n < 2; tries++)
		n += epoll_wait(ep, got, 2, 1000);
	if (n < 2)
		return fprintf(stderr, "glibc-test: epoll saw %d of 2 events\n", n), 1;
	printf("glibc-test: threads, epoll, timerfd, eventfd, signalfd work\n");
	return 0;
}
EOF
"$cc" -O1 -pthread -o "$root/bin/glibc-test" "$work/glibc-test.c" ||
	fail "cannot compile the glibc test program"
# Its loader and libraries, where ldd finds them on this machine.
ldd "$root/bin/glibc-test" | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p' |
	while read -r lib; do
		mkdir -p "$root${lib%/*}"
		cp -L "$lib" "$root$lib"
	done
[ -n "$(ls "$root"/lib*/ld-linux* "$root"/lib/*/ld-linux* 2>/dev/null)" ] ||
	fail "ldd named no dynamic loader for the glibc test program"

# The init: the console first (the archive has no /dev/console), then the
# mounts, the program, the modules; "workload: ..." lines say how each went.
cat >"$root/init" <<'EOF'
#!/bin/sh
mount -t devtmpfs dev /dev
exec 0</dev/console 1>/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs tmp /tmp
echo "workload: init up, $(grep -c -E ' (proc|sysfs|devtmpfs|debugfs|tmpfs) ' /proc/mounts) mounts"
/bin/glibc-test; echo "workload: glibc-test status $?"
m=/lib/modules/$(uname -r)/kernel/kernel
insmod $m/csan-race-test-module/csan_race_test.ko csan_race_test=1 csan_race_test_ms=500
echo "workload: race test insmod status $?"
rmmod csan_race_test; echo "workload: race test rmmod status $?"
insmod $m/csan-race-test-module/csan_race_test.ko csan_race_test=no-such-case
echo "workload: race test bad case insmod status $?"
modprobe kcsan_test; echo "workload: kcsan_test modprobe status $?"
poweroff -f
EOF
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc -R 0:0 --quiet) | gzip -n >"$work/initrd.gz" ||
	fail "cannot make the initramfs"
echo "initramfs: $(wc -c <"$work/initrd.gz") bytes gzip"

# boot KERNEL APPEND LOG: QEMU TCG, 4 vCPUs (the KUnit suite wants 4),
# guest time counted in instructions (above).
boot() {
	start=$(date +%s)
	timeout 900 "$qemu" -accel tcg -icount shift=3,sleep=off -cpu max -smp 4 -m 512 -kernel "$1" \
		-initrd "$work/initrd.gz" -append "console=ttyS0 panic=-1 $2" \
		-serial "file:$3" -monitor none -display none -no-reboot -nodefaults </dev/null ||
		fail "QEMU did not run $1 (status $?): $(tail -n 5 "$3")"
	tr -d '\r' <"$3" >"$3.txt"
	echo "$(basename "$1"): $(($(date +%s) - start)) s under QEMU TCG"
}

# --- the bzImage, the whole workload ------------------------------------------
boot "$bzimage" "" "$work/bz.log"
log=$work/bz.log.txt
grep -q '^\[ *[0-9]*\.[0-9]*\]' "$log" && fail "console lines carry timestamps (PRINTK_TIME)"
for line in 'workload: init up, 5 mounts' 'workload: glibc-test status 0' \
	'workload: race test insmod status 0' 'workload: race test rmmod status 0' \
	'workload: kcsan_test modprobe status 0'; do
	grep -qxF "$line" "$log" || fail "bzImage: no '$line' on the console: $(grep '^workload:' "$log")"
done
grep -q '^workload: race test bad case insmod status [1-9]' "$log" ||
	fail "bzImage: insmod csan_race_test=no-such-case did not fail"
grep -q "^csan-race-test: csan_race_test=no-such-case: no case 'no-such-case'" "$log" ||
	fail "bzImage: the race test module did not name the unknown case"
in_order "$log" \
	'^csan-race-test: as a module: ' \
	'^csan-race-test: start: 500 ms per case, cases: uninstr-writer irq-same-cpu silent-marked silent-locked racy-plain$' \
	'^csan-race-test: case uninstr-writer done: ' '^csan-race-test: case irq-same-cpu done: ' \
	'^csan-race-test: case silent-marked done: ' '^csan-race-test: case silent-locked done: ' \
	'^csan-race-test: case racy-plain done: ' '^csan-race-test: done$' ||
	fail "bzImage: the race test module did not run every case: $(grep 'csan-race-test' "$log")"
# The control: KCSAN names both racing functions of racy-plain, in the
# module ("[csan_race_test]" after a frame).
grep -Eq '^BUG: KCSAN: data-race in race_test_plain_(read|write) \[csan_race_test\] / race_test_plain_(read|write) \[csan_race_test\]$' "$log" ||
	fail "bzImage: KCSAN did not report racy-plain: $(grep 'BUG: KCSAN' "$log" | sort | uniq -c)"
grep -Eq '^ race_test_plain_(read|write)\+0x[0-9a-f]+/0x[0-9a-f]+ \[csan_race_test\]$' "$log" ||
	fail "bzImage: no racy-plain frame names the module csan_race_test"
# KUnit: the suite ran, no case failed.
ktap=$(grep -E '^ *# kcsan: pass:[0-9]+ fail:[0-9]+ skip:[0-9]+ total:[0-9]+$' "$log") ||
	fail "bzImage: no KUnit totals for kcsan: $(grep -E 'kcsan|KTAP' "$log" | tail -n 5)"
echo "bzImage: KUnit $ktap"
case $ktap in
*' fail:0 '*) ;;
*) fail "bzImage: KCSAN's KUnit suite failed cases: $(grep -E '^ +not ok' "$log")" ;;
esac
grep -qE '^ok [0-9]+ kcsan$' "$log" || fail "bzImage: no 'ok N kcsan' KTAP line"

exit 0
