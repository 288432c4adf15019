#!/bin/sh
# sample-overhead.sh: what --watch=sample costs a guest's workload (issue
# 26): Debian's own cloud kernel (tools/linux/stock-kernel.sh: the package
# the emulated host boots, its debug vmlinux) on 2 vCPUs runs
# bench/kernel-workload.sh for SAMPLE_BENCH_SECONDS (default 30) under
# csan-vmm with no detector and with --watch=sample
# (SAMPLE_BENCH_CONFIGS, default: the 20 ms default period; the same with
# sites only in functions the workload never runs, which costs the
# register loads and nothing else; a 200 ms period; the grammar is in
# sample-overhead-inside.sh), alternately in one emulated host,
# SAMPLE_BENCH_ROUNDS times (default 4: a single run there moves by a
# quarter from one minute to the next).  The workload's throughput
# against the no-detector runs of the same rounds is the slowdown (the
# mean of the rounds' ratios); hits per second of the guest's uptime is
# the sampling rate it came from.  Usage: sample-overhead.sh TOP_SRCDIR TOP_BUILDDIR
set -eu
src=$1 build=$2
. "$src/bench/lib.sh"
rounds=${SAMPLE_BENCH_ROUNDS:-4} secs=${SAMPLE_BENCH_SECONDS:-30}
configs=${SAMPLE_BENCH_CONFIGS:-none p20 p20-cold p200}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sample-overhead.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

need_emuhost sample-overhead
stock=$("$src/tools/linux/stock-kernel.sh" -q) || {
	echo "sample-overhead: Debian's stock kernel and its debug vmlinux cannot be fetched here"
	exit 77
}
n=$(echo "$configs" | wc -w)
"$emuhost" --cpus 2 --memory 3072 --timeout $((rounds * n * (secs + 120) + 600)) \
	--file "$build/csan-vmm" --file "$build/src/init/csan-vmm-init:/csan/src/init/csan-vmm-init" \
	--file "$stock/vmlinuz:/csan/vmlinuz" \
	--file "$stock/vmlinux:/csan/vmlinux" \
	--file "$src/bench/kernel-workload.sh:/csan/kernel-workload.sh" \
	--file "$src/bench/sample-overhead-inside.sh:/csan/sample-overhead-inside.sh" \
	-- sh /csan/sample-overhead-inside.sh "$rounds" "$secs" $configs >"$tmp/run.log" 2>&1 || {
	echo "sample-overhead: the emulated host's run failed:"
	tail -n 20 "$tmp/run.log"
	exit 1
}
grep '^sample-overhead: ' "$tmp/run.log" | sed 's/^sample-overhead: /sample-overhead: run: /'
awk -v secs="$secs" -v rounds="$rounds" -v configs="$configs" '$1 == "sample-overhead:" {
	if ($2 == "|") next
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
	exit bad
}' "$tmp/run.log"
