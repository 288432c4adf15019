#!/bin/sh
# sample-overhead.sh: what --watch=sample costs a guest's workload (issue
# 26): Debian's own cloud kernel (tools/linux/stock-kernel.sh: the package
# the emulated host boots, its debug vmlinux) on 2 vCPUs runs
# bench/kernel-workload.sh for SAMPLE_BENCH_SECONDS (default 30) under
# csan-vmm with no detector and with --watch=sample
# (SAMPLE_BENCH_CONFIGS, default: the 20 ms default period; the same with
# sites only in functions the workload never runs, which costs the
# register loads and nothing else; a 200 ms period; the grammar is in
# sample-overhead-inside.sh, with "-hot" for breakpoints hardly ever hit on
# pages of hot code), alternately in one emulated host,
# SAMPLE_BENCH_ROUNDS times (default 4: a single run there moves by a
# quarter from one minute to the next).  The workload's throughput
# against the no-detector runs of the same rounds is the slowdown (the
# mean of the rounds' ratios); hits per second of the guest's uptime is
# the sampling rate it came from.  Boot to boot the workload's throughput
# moves by a quarter or more there (799 and 438 rounds in two boots
# minutes apart), more than the figure sought, so the "-ab"
# configs (default: p20-ab) also measure within one boot: a run of
# SAMPLE_BENCH_AB_SECONDS (default 120) whose sampling is paused in every
# other window of SAMPLE_BENCH_WINDOW seconds (default 6; the control
# socket's sample_paused), each sampled window's throughput against its
# unsampled neighbours'; an "-aa" config (p20-aa) is the same run paused
# throughout, split the same way, to show what the method reads where
# there is no difference.  Usage: sample-overhead.sh TOP_SRCDIR TOP_BUILDDIR
set -eu
src=$1 build=$2
. "$src/bench/lib.sh"
rounds=${SAMPLE_BENCH_ROUNDS:-4} secs=${SAMPLE_BENCH_SECONDS:-30}
ab_secs=${SAMPLE_BENCH_AB_SECONDS:-120} window=${SAMPLE_BENCH_WINDOW:-6}
configs=${SAMPLE_BENCH_CONFIGS:-none p20 p20-cold p200 p20-ab}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sample-overhead.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

need_emuhost sample-overhead
stock=$("$src/tools/linux/stock-kernel.sh" -q) || {
	echo "sample-overhead: Debian's stock kernel and its debug vmlinux cannot be fetched here"
	exit 77
}
[ "$window" -ge 3 ] || { echo "sample-overhead: SAMPLE_BENCH_WINDOW=$window: give at least 3 seconds"; exit 2; }
n=$(echo "$configs" | wc -w)
host_rc=0
"$emuhost" --cpus 2 --memory 3072 --timeout $((rounds * n * (secs + ab_secs + 120) + 600)) \
	--file "$build/csan-vmm" --file "$build/src/init/csan-vmm-init:/csan/src/init/csan-vmm-init" \
	--file "$stock/vmlinuz:/csan/vmlinuz" \
	--file "$stock/vmlinux:/csan/vmlinux" \
	--file "$src/bench/kernel-workload.sh:/csan/kernel-workload.sh" \
	--file "$src/bench/sample-overhead-inside.sh:/csan/sample-overhead-inside.sh" \
	-- sh /csan/sample-overhead-inside.sh "$rounds" "$secs" "$ab_secs" "$window" $configs >"$tmp/run.log" 2>&1 ||
	host_rc=$?
# The runs that finished before a failure still count; the status says it.
if [ "$host_rc" != 0 ]; then
	echo "sample-overhead: the emulated host's run failed (status $host_rc); the figures below are of the runs before it:"
	grep -v '^sample-overhead: ' "$tmp/run.log" | tail -n 20
fi
grep '^sample-overhead: ' "$tmp/run.log" | sed 's/^sample-overhead: /sample-overhead: run: /'
awk -v secs="$secs" -v rounds="$rounds" -v configs="$configs" -v ab_secs="$ab_secs" -v window="$window" \
	-v host_failed="$([ "$host_rc" = 0 ] && echo 0 || echo 1)" '$1 == "sample-overhead:" {
	if ($2 == "|") next
	if ($2 == "window") {
		# CONFIG ROUND K PAUSED ROUNDS T0 T1: a window of an A/B run.
		if ($9 > $8) { rate[$3, $4, $5] = $7 / ($9 - $8); paused[$3, $4, $5] = $6 }
		if ($5 > nwin[$3, $4]) nwin[$3, $4] = $5
		next
	}
	c = $2; r = $3
	if ($4 == "none") { unfinished[c]++; next }
	work[c, r] = $4; hits[c] += $5; watches[c] += $6; reports[c] += $7; draws[c] += $8; up[c] += $9; runs[c]++
}
END {
	printf "sample-overhead: Debian stock kernel, 2 vCPUs, %d s workload, %d alternating rounds in one emulated host\n", secs, rounds
	n = split(configs, order, " ")
	for (k = 1; k <= n; k++) {
		c = order[k]
		if (unfinished[c]) { printf "sample-overhead: %s: %d runs did not finish\n", c, unfinished[c]; bad = 1 }
		if (c == "none" || !runs[c]) continue
		# A -hot config stands for breakpoints that sit on hot pages unhit.
		if (c ~ /-hot/ && hits[c] > 10 * runs[c])
			printf "sample-overhead: config=%s: its sites were hit %d times in %d runs, more than 10 a run: the functions meant to be never run do run on this kernel\n", c, hits[c], runs[c]
		if (c ~ /-a[ab]/) { ab(c); continue }
		# The ratio per round, against that round'"'"'s run with no detector.
		s = 0; m = 0
		for (r = 1; r <= rounds; r++)
			if (work[c, r] && work["none", r]) { s += work["none", r] / work[c, r]; m++ }
		if (!m) continue
		# Rates per second of the guest'"'"'s uptime: the counters run from early boot.
		printf "sample-overhead: config=%s slowdown=%.2fx hits/s=%.1f watches/s=%.1f loads/s=%.1f reports=%d\n",
			c, s / m, up[c] ? hits[c] / up[c] : 0, up[c] ? watches[c] / up[c] : 0,
			up[c] ? draws[c] / up[c] : 0, reports[c]
		# A -cold config whose sites never changed measured nothing of the loads.
		if (c ~ /-cold/ && draws[c] <= runs[c])
			printf "sample-overhead: config=%s loaded its code breakpoints at most once a run: its sites (functions the workload never runs) did not match this kernel, or too few to change\n", c
	}
	exit (bad || host_failed)
}
# An A/B config: each sampled window against the mean of its unsampled
# neighbours (one or two), within the same boot.
function ab(c,   r, k, m, s, ss, lo, hi, x, nb, nr, se, on) {
	m = 0; s = 0; ss = 0
	for (r = 1; r <= rounds; r++)
		for (k = 1; k <= nwin[c, r]; k++) {
			if (paused[c, r, k] != "0" || !rate[c, r, k]) continue
			nb = 0; nr = 0
			if (paused[c, r, k - 1] == "1" && rate[c, r, k - 1]) { nb += rate[c, r, k - 1]; nr++ }
			if (paused[c, r, k + 1] == "1" && rate[c, r, k + 1]) { nb += rate[c, r, k + 1]; nr++ }
			if (!nr) continue
			x = (nb / nr) / rate[c, r, k]
			m++; s += x; ss += x * x
			if (m == 1 || x < lo) lo = x
			if (m == 1 || x > hi) hi = x
		}
	if (!m) { printf "sample-overhead: config=%s: no sampled window had an unsampled neighbour\n", c; bad = 1; return }
	x = ss - s * s / m
	se = m > 1 && x > 0 ? sqrt(x / (m - 1) / m) : 0
	# Sampling ran about half the run (the boot sampled too): its rates
	# are per second sampled, roughly.
	on = up[c] / 2
	printf "sample-overhead: config=%s slowdown=%.2fx (within each boot: %d sampled %d-s windows against their unsampled neighbours, %.2f-%.2f, standard error %.2f) hits/s=%.1f watches/s=%.1f loads/s=%.1f (per sampled second, about) reports=%d\n",
		c, s / m, m, window, lo, hi, se, on ? hits[c] / on : 0, on ? watches[c] / on : 0,
		on ? draws[c] / on : 0, reports[c]
}' "$tmp/run.log"
