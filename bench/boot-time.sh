#!/bin/sh
# boot-time.sh: how long the bundled guest takes to boot and pass its
# selftest (all CPUs up, timer interrupts on each, a locked counter: the
# whole run, process start to exit), the same ELF three ways, 2 vCPUs each:
#  - csan-vmm on this machine's /dev/kvm (here PVM: guest kernel code is
#    emulated by KVM's instruction emulator, ~1.6 M instructions/s);
#  - qemu-system-x86_64 -kernel on this machine in pure emulation (TCG),
#    the way tests/cli/qemu-pvh.sh boots it;
#  - csan-vmm --host=emulated from this machine: what a user without
#    /dev/kvm (or with PVM and --watch=hw) waits for, the emulated host's
#    boot included;
#  - csan-vmm inside the emulated host (real kvm-amd, itself under QEMU
#    TCG), timed there by busybox's time (10 ms resolution): the run
#    alone, without the emulated host's start.
# The first three are interleaved, so a slow moment hits them alike; the
# ratio of --host=emulated to QEMU TCG on the same ELF is what the
# emulated mode costs over the plain emulator.
# Usage: boot-time.sh TOP_SRCDIR TOP_BUILDDIR [ROUNDS]
set -eu
src=$1 build=$2 rounds=${3:-3}
. "$src/bench/lib.sh"
vmm="$build/csan-vmm" guest="$build/src/guest/csan-guest"
qemu=${QEMU_SYSTEM:-qemu-system-x86_64}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/boot-time.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }
# timed NAME COMMAND...: run it, add its wall time to $tmp/NAME, fail on
# a status other than 0 (csan-vmm) or 1 (QEMU's isa-debug-exit for 0).
timed() {
	name=$1; shift
	t0=$(now)
	"$@" >"$tmp/out" 2>&1 && st=0 || st=$?
	t1=$(now)
	if [ "$st" -gt 1 ] || ! grep -q 'csan-result: scenario=selftest status=pass' "$tmp/out"; then
		echo "boot-time: $name failed (status $st):"; cat "$tmp/out"; exit 1
	fi
	echo "$t0 $t1" | awk '{ printf "%.3f\n", $2 - $1 }' >>"$tmp/$name"
}
mean() { awk '{ s += $1; n++ } END { if (n) printf "%.2f", s / n; else printf "-" }' "$tmp/$1" 2>/dev/null || echo -; }

have_kvm=no
[ -r /dev/kvm ] && [ -w /dev/kvm ] && have_kvm=yes
have_qemu=no
command -v "$qemu" >/dev/null && have_qemu=yes
have_emu=no
"$emuhost" --check >/dev/null 2>&1 && have_emu=yes
i=0
while [ "$i" -lt "$rounds" ]; do
	[ $have_kvm = no ] || timed direct timeout 300 "$vmm" -q --scenario=selftest "$guest"
	[ $have_qemu = no ] || timed qemu timeout 300 "$qemu" -machine pc -accel tcg -cpu max \
		-smp 2 -m 128M -kernel "$guest" -append scenario=selftest -display none \
		-serial stdio -monitor none -no-reboot -device isa-debug-exit,iobase=0xf4,iosize=4
	[ $have_emu = no ] || timed emulated timeout 300 "$vmm" --host=emulated -q \
		--scenario=selftest "$guest"
	i=$((i + 1))
done

if [ $have_emu = yes ]; then
	runs=""
	i=0
	while [ "$i" -lt "$rounds" ]; do
		runs="$runs time csan-vmm -q --scenario=selftest >/dev/null;"
		i=$((i + 1))
	done
	in_emuhost 900 "$runs" 2>&1 | awk '/^real/ {
			t = $2; m = 0
			if (t ~ /m/) { m = t; sub(/m.*/, "", m); sub(/.*m/, "", t) }
			if (t == "" && $3 != "") t = $3
			sub(/s$/, "", t); printf "%.3f\n", m * 60 + t }' >"$tmp/emuhost"
fi

kvm=KVM; [ -d /sys/module/kvm_pvm ] && kvm=PVM
echo "boot-time: selftest on 2 vCPUs, process start to exit, mean of $rounds"
echo "boot-time:   csan-vmm, this machine's /dev/kvm ($kvm)  $(mean direct) s"
echo "boot-time:   qemu-system-x86_64 -kernel, TCG, this machine  $(mean qemu) s"
echo "boot-time:   csan-vmm --host=emulated, this machine  $(mean emulated) s"
echo "boot-time:   csan-vmm in the emulated host, the run alone (kvm-amd under TCG)  $(mean emuhost) s"
if [ -s "$tmp/emulated" ] && [ -s "$tmp/qemu" ]; then
	echo "boot-time: --host=emulated / qemu TCG -kernel = $(awk -v a="$(mean emulated)" \
		-v b="$(mean qemu)" 'BEGIN { printf "%.2f", a / b }')x"
fi
[ -s "$tmp/direct" ] || [ -s "$tmp/qemu" ] || [ -s "$tmp/emuhost" ] || exit 77
