# bench-native-lines.sh: make bench-native's figure lines, short runs: their
# form, one per workload, and a ThreadSanitizer figure that shows it ran.
. "$top_srcdir/tests/lib.sh"

bin="$top_builddir/bench/native/bench-native"
tsan="$top_builddir/bench/native/bench-native-tsan"
[ -x "$bin" ] || skip "bench-native not built (a --enable-sanitizers=thread build leaves it out)"
[ -x "$tsan" ] || skip "bench-native-tsan not built: configure found no working -fsanitize=thread (see config.log)"

fig='[0-9]+\.[0-9][0-9]x'
# Short runs (400,000 iterations, a tenth of dense's usual): the form, not the figure;
# five rounds, so a median above 1x survives a busy machine (the peer is
# 13-23x here, 2026-12-06).
"$bin" --rounds=5 --iterations=400000 --tsan="$tsan" >"$out" 2>"$err"
rc=$?
expect_rc 0
in_order "$out" \
	"^native slowdown workload=dense default=$fig nosample=$fig tsan=$fig\$" \
	"^native slowdown workload=kernel-like default=$fig nosample=$fig tsan=$fig\$" ||
	fail "no native slowdown line for each workload, in order, in the documented form"
[ "$(grep -c '^native slowdown ' "$out")" = 2 ] || fail "expected exactly two native slowdown lines"
# ThreadSanitizer checks every access through libtsan's shadow memory: a
# peer that ran its workloads uninstrumented, or not at all, shows as 1x
# or less.  Its slowdown is above 10x on both workloads; 1x is far off.
awk '/^native slowdown / { t = $NF; sub(/^tsan=/, "", t); sub(/x$/, "", t)
	if (t + 0 <= 1) { print "tsan=" t "x on " $3 ": not slower than uninstrumented"; bad = 1 } }
	END { exit bad }' "$out" || fail "ThreadSanitizer's figure is not a slowdown"

# Without the peer its figures say so instead of showing a number.
"$bin" --rounds=1 --iterations=20000 >"$out" 2>"$err"
rc=$?
expect_rc 0
in_order "$out" \
	"^native slowdown workload=dense default=$fig nosample=$fig tsan=n/a\$" \
	"^native slowdown workload=kernel-like default=$fig nosample=$fig tsan=n/a\$" ||
	fail "without --tsan, tsan=n/a expected"

# A peer that cannot start is named, with the reason, and fails the run.
"$bin" --rounds=1 --iterations=20000 --tsan="$work/no-such-peer" >"$out" 2>"$err"
rc=$?
expect_rc 1
expect_err "cannot start the ThreadSanitizer peer: .*no-such-peer: No such file or directory"
# One that dies while running (a stand-in that exits at once) too.
printf '#!/bin/sh\nexit 3\n' >"$work/dying-peer"
chmod +x "$work/dying-peer"
"$bin" --rounds=1 --iterations=20000 --tsan="$work/dying-peer" >"$out" 2>"$err"
rc=$?
expect_rc 1
expect_err "ThreadSanitizer peer failed: .*dying-peer exited with status 3"
exit 0
