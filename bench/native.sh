#!/bin/sh
# bench/native.sh: `make bench-native`: the runtime's cost on this machine's CPUs.
# $1: the bench-native binary; $2: bench-native-tsan, the same workloads
# under gcc's ThreadSanitizer, or empty when configure found it cannot be
# built or run here, $3 saying why.  Wall-clock slowdowns (median of 11
# rounds, threads = cores, the peer in every round), then instruction
# counts under callgrind, which are exact and repeatable on a noisy
# machine: per instrumented access on the fast path (sampling off) and per
# watchpoint set up (the delay left out), and the same for the peer: per
# access in libtsan's entry points, and the whole run against the
# uninstrumented one.
set -e
bin=$1 tsan=${2:-} tsan_why=${3:-}
test -x "$bin" || { echo "bench/native.sh: no $bin; run make bench-native" >&2; exit 1; }
if [ -n "$tsan" ]; then
	test -x "$tsan" || { echo "bench/native.sh: no $tsan; run make bench-native" >&2; exit 1; }
	set -- --tsan="$tsan"
else
	echo "bench-native: no ThreadSanitizer peer, tsan=n/a: ${tsan_why:-not built}"
	set --
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Inclusive instructions and calls per callee from a callgrind profile: the
# lines after cfn= are "calls=N target" and then "position inclusive-cost".
callee_cost() { # $1: profile, $2: awk regex of callee names; prints "calls cost"
	# Names are compressed: "(id) name" the first time (after fn= or cfn=), "(id)" after.
	awk -v re="$2" '
		/^c?fn=/ { name = $0; sub(/^c?fn=(\([0-9]+\) ?)?/, "", name);
			   id = ""; if (match($0, /^c?fn=\([0-9]+\)/)) id = substr($0, RSTART, RLENGTH);
			   sub(/^c/, "", id);
			   if (id != "" && name != "") names[id] = name; else if (id != "") name = names[id];
			   if ($0 ~ /^cfn=/) want = name ~ re; next }
		/^calls=/ { if (want) { split($0, a, /[= ]/); calls += a[2]; grab = 1 } next }
		grab { cost += $2; grab = 0 }
		END { printf "%d %d\n", calls, cost }' "$1"
}

cg() { # $1: workload, $2: fast|setup, $3: knobs; prints the profile's name
	CSAN_NATIVE_KNOBS=$3 valgrind --tool=callgrind --callgrind-out-file="$tmp/$1-$2.out" \
		"$bin" --workload="$1" --callgrind="$2" --iterations="$4" >/dev/null 2>"$tmp/$1-$2.err" ||
		{ cat "$tmp/$1-$2.err" >&2; exit 1; }
	echo "$tmp/$1-$2.out"
}

cg_tsan() { # $1: workload, $2: iterations; one thread; prints the profile's name
	echo "$1 $2 1" | valgrind --tool=callgrind --callgrind-out-file="$tmp/$1-tsan.out" \
		"$tsan" >/dev/null 2>"$tmp/$1-tsan.err" || { cat "$tmp/$1-tsan.err" >&2; exit 1; }
	echo "$tmp/$1-tsan.out"
}

# A failed run (a report in the race-free workloads, from either sanitizer) fails the script.
{ "$bin" --rounds=11 "$@" || echo $? >"$tmp/failed"; } | tee "$tmp/wall"
[ ! -e "$tmp/failed" ] || { echo "bench/native.sh: bench-native failed (status $(cat "$tmp/failed"))" >&2; exit 1; }
have_valgrind=yes
command -v valgrind >/dev/null || have_valgrind=no
for w in dense kernel-like; do
	line=$(grep "^native slowdown workload=$w " "$tmp/wall")
	if [ $have_valgrind = no ]; then
		{ echo "$line"; echo "fast path: not counted: valgrind not installed (Debian package valgrind) workload=$w"; } >>"$tmp/summary"
		continue
	fi
	# The fast path alone: sampling off, so no access leaves it.
	fn=$(echo "$w" | sed 's/-.*//')
	p=$(cg "$w" fast "" 200000)
	set -- $(callee_cost "$p" '^__tsan_(unaligned_)?(volatile_)?(read|write|read_write)[0-9]+$|^__tsan_atomic')
	calls=$1 cost=$2
	set -- $(callee_cost "$p" "^bench_${fn}_instr\$")
	icost=$2
	# Watchpoints: one every 50 accesses, 1 us each; the delay's cost taken out.
	p=$(cg "$w" setup "csan.skip_watch=50 csan.udelay_task=1" 20000)
	set -- $(callee_cost "$p" '^csan_setup_watchpoint$')
	setups=$1 scost=$2
	set -- $(callee_cost "$p" '^csan_port_udelay$')
	dcost=$2
	# The uninstrumented run, for the workload's own instructions per access.
	p=$(cg "$w" plain "" 200000)
	set -- $(callee_cost "$p" "^bench_${fn}_plain\$")
	pcost=$2
	echo "$w: $calls accesses, $cost instructions in the entry points; $setups watchpoints set up"
	awk -v n="$calls" -v p="$pcost" -v w="$w" 'BEGIN {
		printf "%s: uninstrumented, %.1f instructions per instrumented access\n", w, n ? p / n : 0 }'
	# The whole run's instructions, call sites and register moves included:
	# what the sampling-off slowdown would be if every instruction cost the same.
	awk -v i="$icost" -v p="$pcost" -v w="$w" 'BEGIN {
		printf "%s: instructions, sampling off / uninstrumented: %.2fx\n", w, p ? i / p : 0 }'
	awk -v s="$setups" -v c="$scost" -v d="$dcost" -v w="$w" 'BEGIN {
		printf "%s: watchpoint set-up, %d instructions each (delay excluded)\n", w, s ? (c - d) / s : 0 }'
	{ echo "$line"; awk -v n="$calls" -v c="$cost" -v w="$w" 'BEGIN {
		printf "fast path: %.1f instructions per access workload=%s\n", n ? c / n : 0, w }'; } >>"$tmp/summary"
	[ -n "$tsan" ] || continue
	# The peer on the same run: its plain and volatile accesses go through
	# __tsan_readN/writeN (it does not tell volatile apart); its atomics are
	# the locks', which the csan build leaves uninstrumented, so they count
	# in the whole run's instructions but not per access.
	p=$(cg_tsan "$w" 200000)
	set -- $(callee_cost "$p" '^__tsan_(unaligned_)?(read|write)[0-9]+$')
	tcalls=$1 tcost=$2
	set -- $(callee_cost "$p" "^bench_${fn}_tsan\$")
	ticost=$2
	echo "$w: ThreadSanitizer: $tcalls accesses, $tcost instructions in the entry points"
	awk -v i="$ticost" -v p="$pcost" -v w="$w" 'BEGIN {
		printf "%s: instructions, ThreadSanitizer / uninstrumented: %.2fx\n", w, p ? i / p : 0 }'
	awk -v n="$tcalls" -v c="$tcost" -v w="$w" 'BEGIN {
		printf "ThreadSanitizer: %.1f instructions per access workload=%s\n", n ? c / n : 0, w }' >>"$tmp/summary"
done
# The figures last, two or three lines per workload.
cat "$tmp/summary"
