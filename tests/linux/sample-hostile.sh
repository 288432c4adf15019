# sample-hostile.sh: --watch=sample on a guest that rewrites a sampled
# instruction and unloads a module with a live code breakpoint in it
# (issue 26, point 7).  The module csan_sample_hostile.ko
# (tests/linux/sample-hostile/, built here out of tree against the cached
# workload kernel's build tree) calls hostile_patched_read() on CPU 0,
# rewrites its load of hostile_word to read hostile_other, and only then
# lets CPU 1 write hostile_word (hostile_write).  --sample-only keeps the
# draw to those two functions, one site each, so both surely carry a code
# breakpoint.  Then rmmod unloads it, and the race test module runs a
# case after it.  What must hold:
#   - the guest keeps running correctly: every call after the rewrite
#     read the new word, the module unloads, the race test runs to its
#     end after it, and --run's command ends with status 0;
#   - the rewritten site's first hit after the rewrite is seen as such
#     and retired, not decoded ("1 hits on rewritten bytes"): no sampling
#     report at all, where decoding the old bytes would have watched
#     hostile_word and caught CPU 1's writes;
#   - at the unload the module's sites are retired and its code
#     breakpoint taken off its text;
#   - its exception table (one entry: hostile_probe's load) is read from
#     the guest as the module joins.
. "$top_srcdir/tests/lib.sh"
LINUX_TIMEOUT=${LINUX_TIMEOUT:-600}
. "$top_srcdir/tests/linux/lib.sh"
. "$top_srcdir/tests/linux/module-lib.sh"
require_module_kernel
"$VMM" --help | grep -q -- '--sample-only' || skip "this csan-vmm has no --watch=sample"

# The module, against the build tree of the cached kernel (its vermagic);
# the tree is shared, so under its cache's lock as workload_kernel reads it.
hdir=$work/hostile
mkdir -p "$hdir"
cp "$top_srcdir/tests/linux/sample-hostile/Kbuild" \
	"$top_srcdir/tests/linux/sample-hostile/csan_sample_hostile.c" "$hdir/"
flock -s -w 600 "${wk_out%/*}/lock" make -C "$workload_build" M="$hdir" modules \
	>"$work/hostile-build.log" 2>&1 ||
	fail "the module did not build against $workload_build: $(tail -n 5 "$work/hostile-build.log")"
hko=$hdir/csan_sample_hostile.ko
# Its exception table (hostile_probe's load), as the file has it: the
# sampler reads the guest's copy.
exsize=$(objdump -h "$hko" | awk '$2 == "__ex_table" { print $3 }')
[ -n "$exsize" ] || fail "the module has no __ex_table: hostile_probe was built without one"
nex=$((0x$exsize / 12))

hcmd='insmod /csan_sample_hostile.ko hostile_ms=1500 && rmmod csan_sample_hostile && insmod /csan_race_test.ko csan_race_test=silent-marked csan_race_test_ms=1000'
run_hostile_once() {
	timeout "$VMM_WALL_LIMIT" "$VMM" --cpus=2 --memory=256M --timeout="$LINUX_TIMEOUT" \
		--watch=sample --seed=26 --sample-only=hostile_patched_read,hostile_write \
		--modules="$hdir" --add="$hko:/csan_sample_hostile.ko" \
		--add="$ko:/csan_race_test.ko" \
		--run="$hcmd" \
		"$kernel" </dev/null >"$out" 2>"$err"
	rc=$?
	[ "$rc" != 124 ] || fail "csan-vmm still running after ${VMM_WALL_LIMIT}s"
}
retry_nested_state_lost run_hostile_once
console=$(tr -d '\r' <"$out")

# The guest: the rewritten code ran as rewritten, and the work after the unload was done.
done_line=$(echo "$console" | grep -E '^csan-sample-hostile: rewrote hostile_patched_read\+0x[0-9a-f]+: [0-9]+ calls before, [0-9]+ after, [0-9]+ read a wrong value; cpu 1 wrote [0-9]+ times$') ||
	fail "the module did not rewrite its instruction: $(echo "$console" | grep -E 'hostile|insmod|rmmod' | tail -n 3)"
echo "$done_line"
set -- $(echo "$done_line" | sed 's/.*: \([0-9]*\) calls before, \([0-9]*\) after, \([0-9]*\) read a wrong value; cpu 1 wrote \([0-9]*\) times$/\1 \2 \3 \4/')
[ "$1" -gt 0 ] && [ "$2" -gt 0 ] && [ "$4" -gt 0 ] ||
	fail "the module's loops did not run: $1 calls before, $2 after, $4 writes"
[ "$3" = 0 ] || fail "$3 calls read a wrong value: the guest did not run its own code as written"
for l in 'csan-sample-hostile: done' 'csan-sample-hostile: unloading' 'csan-race-test: done'; do
	echo "$console" | grep -qx "$l" || fail "no '$l' on the console: the guest stopped short"
done
# --run's command ended well (its last words may not reach the console
# before the guest powers off; csan-vmm says its exit status).
grep -qxF "csan-vmm: workload: '$hcmd' exited with status 0" "$err" ||
	fail "--run's command did not end with status 0: $(grep 'workload:' "$err")"
[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "exit status $rc: the workload failed or the guest faulted"

# The module's two sites joined the draw, its exception table read from the guest.
expect_err "^csan-vmm: sampling: module csan_sample_hostile at 0xffffffff[0-9a-f]+: 2 sites of [0-9]+ instructions, only in hostile_patched_read,hostile_write, $nex in its exception table "
# The rewritten one, at its first hit after the rewrite: retired, not decoded.
expect_err '^csan-vmm: sampling: vCPU 0 stopped at 0xffffffff[0-9a-f]+ \(hostile_patched_read\+0x[0-9a-f]+\), whose bytes are no longer the site.s: retired, not decoded$'
expect_err '^csan-vmm: sampling: .* 1 hits on rewritten bytes \(retired, not decoded\); '
! grep -q 'host sampling breakpoint' "$err" ||
	fail "a sampling report: only the old bytes' operand, hostile_word, has a writer: $(grep -m 3 -E '^BUG: KCSAN|^Seen by' "$err")"
# The unload: the other site retired, its code breakpoint taken off.
expect_err '^csan-vmm: sampling: module csan_sample_hostile at 0xffffffff[0-9a-f]+ went away: 1 sites retired, its code breakpoints taken off$'
expect_err '^csan-vmm: sampling modules: [0-9]+ looks at the list, 2 modules sampled \(2 sites\), 0 reads that failed; 1 went away \(1 sites retired, 1 code breakpoints taken off their text\)$'

grep -E '^csan-vmm: sampling' "$err"
exit 0
