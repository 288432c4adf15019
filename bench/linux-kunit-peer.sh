#!/bin/sh
# linux-kunit-peer.sh: how many of Linux's KCSAN KUnit cases pass under
# csan-vmm (soft and hw mode) and under the fair peer, qemu-system-x86_64
# -accel kvm, all inside one emulated host on its one KVM, alternately
# (bench/linux-kunit-peer-inside.sh), KUNIT_PEER_ROUNDS runs each (default
# 10).  Each case waits CONFIG_KCSAN_REPORT_ONCE_IN_MS + 500 ms for its
# report, so the count says how the nested run's timing treats each VMM.
# KUNIT_PEER_ONCE_MS (default 100, as many users' kernels have) picks the
# kernel: the project's test kernel (tools/linux/kcsan.config) with that
# REPORT_ONCE_IN_MS, built by build-vmlinux.sh --fragment (only what the
# option touches is rebuilt).  KUNIT_PEER_RUNS picks the runs (default
# "qemu-kvm csan-soft csan-hw").  Usage: linux-kunit-peer.sh TOP_SRCDIR TOP_BUILDDIR
set -eu
src=$1 build=$2
. "$src/bench/lib.sh"
qemu=${QEMU_SYSTEM:-qemu-system-x86_64}
rounds=${KUNIT_PEER_ROUNDS:-10} once_ms=${KUNIT_PEER_ONCE_MS:-100}
runs=${KUNIT_PEER_RUNS:-qemu-kvm csan-soft csan-hw}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/linux-kunit-peer.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

need_emuhost linux-kunit-peer
qemu_bin=$(command -v "$qemu") || { echo "linux-kunit-peer: $qemu not found"; exit 77; }
sed "s/^CONFIG_KCSAN_REPORT_ONCE_IN_MS=.*/CONFIG_KCSAN_REPORT_ONCE_IN_MS=$once_ms/" \
	"$src/tools/linux/kcsan.config" >"$tmp/kcsan-once.config"
grep -qx "CONFIG_KCSAN_REPORT_ONCE_IN_MS=$once_ms" "$tmp/kcsan-once.config" ||
	{ echo "linux-kunit-peer: tools/linux/kcsan.config sets no CONFIG_KCSAN_REPORT_ONCE_IN_MS"; exit 1; }
vmlinux=$("$src/tools/linux/build-vmlinux.sh" -q --fragment "$tmp/kcsan-once.config") || {
	echo "linux-kunit-peer: the Linux test kernel cannot be built here"
	exit 77
}

# One run takes 1 to 4 minutes there, by the machine's load.
"$emuhost" --cpus 2 --memory 3072 --timeout $((rounds * 3 * 900)) --file "$build/csan-vmm" \
	--file "$vmlinux" --file "$qemu_bin:/usr/bin/qemu-system-x86_64" \
	--file /usr/share/qemu:/usr/share/ --file /usr/share/seabios:/usr/share/ \
	--file "$src/bench/linux-kunit-peer-inside.sh" \
	-- sh /csan/linux-kunit-peer-inside.sh "$rounds" $runs >"$tmp/peer.log" 2>&1 || {
	echo "linux-kunit-peer: the emulated host's run failed:"
	tail -n 20 "$tmp/peer.log"
	exit 1
}
grep -E '^kunit-peer(-why)?: ' "$tmp/peer.log" | sed 's/^/linux-kunit-peer: run: /'
awk -v ms="$once_ms" -v rounds="$rounds" '$1 == "kunit-peer:" {
	name = $2; n[name]++
	if ($4 == "none") { counts[name] = counts[name] " -"; unfinished[name]++; next }
	counts[name] = counts[name] " " $4; sum[name] += $4
	if ($5 == 0) clean[name]++
	secs[name] += $7
	for (i = 8; i <= NF; i++) { fails[name, $i]++; names[$i] = 1 }
}
END {
	printf "linux-kunit-peer: KCSAN KUnit kernel, REPORT_ONCE_IN_MS=%d, 4 vCPUs, in one emulated host, %d alternating rounds\n", ms, rounds
	split("qemu-kvm csan-soft csan-hw", order, " ")
	for (k = 1; k <= 3; k++) {
		m = order[k]
		if (!n[m]) continue
		f = ""
		for (c in names) if (fails[m, c]) f = f sprintf(" %s(%d)", c, fails[m, c])
		printf "linux-kunit-peer: kunit %s passed per run:%s; mean %.1f; runs with no failed case %d of %d; %.0f s per run; failed cases:%s\n",
			m, counts[m], n[m] - unfinished[m] ? sum[m] / (n[m] - unfinished[m]) : 0, clean[m], n[m],
			n[m] - unfinished[m] ? secs[m] / (n[m] - unfinished[m]) : 0, f == "" ? " none" : f
	}
}' "$tmp/peer.log"
