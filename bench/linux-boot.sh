#!/bin/sh
# linux-boot.sh: tools/linux's KCSAN test kernel (the same vmlinux) booted
# to its KCSAN KUnit suite and through it, two ways, 4 vCPUs, 512 MiB:
#  - qemu-system-x86_64 -kernel on this machine in pure emulation (TCG,
#    -cpu max, multi-threaded), the reference issue 13 names;
#  - csan-vmm inside the emulated host (real kvm-amd under TCG);
#  - the peer comparison: inside one emulated host, on its one KVM,
#    qemu-system-x86_64 -accel kvm against csan-vmm, boot to the first
#    KTAP line in wall time, alternately PEER_ROUNDS times (default 3;
#    bench/linux-peer-inside.sh), QEMU and its firmware carried in.
# Figures are the guest's own printk times (kvm-clock / TCG's clock, both
# wall time): boot to the first KTAP line, and the suite from there to its
# summary; plus the whole run's wall time (the emulated host's own boot,
# about 13 s here, included).  Both run one after the other, so a busy
# machine slows both alike only roughly: read the ratio, not the seconds.
# Usage: linux-boot.sh TOP_SRCDIR TOP_BUILDDIR
set -eu
src=$1 build=$2
. "$src/bench/lib.sh"
qemu=${QEMU_SYSTEM:-qemu-system-x86_64}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/linux-boot.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
append="kunit_shutdown=reboot printk.time=1"

need_emuhost linux-boot
command -v "$qemu" >/dev/null || { echo "linux-boot: $qemu not found"; exit 77; }
vmlinux=$("$src/tools/linux/build-vmlinux.sh" -q) || {
	echo "linux-boot: the Linux test kernel cannot be built here"
	exit 77
}

now() { date +%s.%N; }
# stamp FILE PATTERN: the printk time of FILE's first line matching PATTERN.
stamp() { sed -n "s/^\[ *\([0-9.]*\)\] .*$2.*/\1/p" "$1" | head -n 1; }
# report NAME FILE WALL: the three figures of one run.
report() {
	ktap=$(stamp "$2" 'KTAP version 1')
	done_=$(stamp "$2" '# kcsan: pass:')
	[ -n "$ktap" ] && [ -n "$done_" ] || { echo "linux-boot: $1 did not finish the suite"; exit 1; }
	result=$(sed -n 's/.*# kcsan: \(pass:.*\)/\1/p' "$2" | head -n 1)
	echo "$1 $ktap $done_ $3 $result" >>"$tmp/figures"
}

t0=$(now)
timeout 900 "$qemu" -accel tcg,thread=multi -cpu max -smp 4 -m 512 -kernel "$vmlinux" \
	-append "console=ttyS0 reboot=t panic=-1 $append" -display none -serial stdio \
	-monitor none -no-reboot </dev/null 2>&1 | tr -d '\r' >"$tmp/qemu.log" || true
report qemu "$tmp/qemu.log" "$(echo "$t0 $(now)" | awk '{ printf "%.1f", $2 - $1 }')"

t0=$(now)
"$emuhost" --cpus 2 --memory 3072 --timeout 1200 --file "$build/csan-vmm" --file "$vmlinux" \
	-- csan-vmm --cpus=4 --memory=512M --timeout=900 -a "$append" /csan/vmlinux \
	>"$tmp/vmm.log" 2>"$tmp/vmm.err" || true
report csan-vmm "$tmp/vmm.log" "$(echo "$t0 $(now)" | awk '{ printf "%.1f", $2 - $1 }')"

# The peer comparison: QEMU, its libraries (the harness carries those of
# any ELF it carries) and its firmware directories go in beside csan-vmm.
qemu_bin=$(command -v "$qemu")
"$emuhost" --cpus 2 --memory 3072 --timeout 900 --file "$build/csan-vmm" --file "$vmlinux" \
	--file "$qemu_bin:/usr/bin/qemu-system-x86_64" --file /usr/share/qemu:/usr/share/ \
	--file /usr/share/seabios:/usr/share/ --file "$src/bench/linux-peer-inside.sh" \
	-- sh /csan/linux-peer-inside.sh "${PEER_ROUNDS:-3}" >"$tmp/peer.log" 2>&1 || {
	echo "linux-boot: the peer comparison failed:"
	tail -n 20 "$tmp/peer.log"
	exit 1
}

awk '{ k[$1] = $2; s[$1] = $3 - $2; w[$1] = $4; r[$1] = $5; for (i = 6; i <= NF; i++) r[$1] = r[$1] " " $i }
END {
	print "linux-boot: KCSAN KUnit kernel, 4 vCPUs; boot to first KTAP line / suite / whole run"
	printf "linux-boot:   qemu-system-x86_64 TCG, this machine  %.2f s / %.1f s / %.1f s (%s)\n", k["qemu"], s["qemu"], w["qemu"], r["qemu"]
	printf "linux-boot:   csan-vmm in the emulated host  %.2f s / %.1f s / %.1f s (%s)\n", k["csan-vmm"], s["csan-vmm"], w["csan-vmm"], r["csan-vmm"]
	printf "linux-boot:   csan-vmm (emulated host) / QEMU TCG: boot %.2fx, suite %.2fx\n", k["csan-vmm"] / k["qemu"], s["csan-vmm"] / s["qemu"]
}' "$tmp/figures"
awk '$1 == "peer:" && NF == 5 { t[$2] += $4 - $3; n[$2]++; if ($5 != "?") { l[$2] += $5; nl[$2]++ } }
END {
	if (!n["qemu-kvm"] || !n["csan-vmm"]) { print "linux-boot: no peer figures"; exit 1 }
	q = t["qemu-kvm"] / n["qemu-kvm"]; c = t["csan-vmm"] / n["csan-vmm"]
	print "linux-boot: peer, inside the emulated host on its KVM: wall time to the first KTAP line, mean of " n["csan-vmm"]
	printf "linux-boot:   qemu-system-x86_64 -accel kvm  %.2f s\n", q
	printf "linux-boot:   csan-vmm                       %.2f s\n", c
	printf "linux-boot:   QEMU / csan-vmm: %.2fx (goal: 3x)\n", q / c
	if (nl["qemu-kvm"] && nl["csan-vmm"]) {
		lq = l["qemu-kvm"] / nl["qemu-kvm"]; lc = l["csan-vmm"] / nl["csan-vmm"]
		printf "linux-boot:   of which Linux'"'"'s own boot (printk time of that line): QEMU %.2f s, csan-vmm %.2f s\n", lq, lc
		printf "linux-boot:   QEMU / (csan-vmm'"'"'s Linux time alone): %.2fx, the most any csan-vmm start-up could give\n", q / lc
	}
}' "$tmp/peer.log"
