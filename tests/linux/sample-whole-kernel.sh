# sample-whole-kernel.sh: --watch=sample over the whole text of the test
# kernel (src/vmm/sample/), no --sample-only: code breakpoints land on
# sites drawn from some 150,000 instructions all over the kernel, the
# hitting vCPU is held at each, and the guest must still boot, run the
# race test's race-free lock case (silent-locked: both sides under one
# spinlock, so a vCPU held inside it keeps the other out) to its end and
# reboot.  What must hold:
#   - the run ends as the guest asked (reboot), with the race test done;
#   - sampling drew from the whole table (the start line's count is the
#     table's, far more than a function's few), armed code breakpoints,
#     and they were hit;
#   - no report names the lock case's functions: under the lock there is
#     no race, and a held vCPU cannot make one.
. "$top_srcdir/tests/lib.sh"
LINUX_TIMEOUT=${LINUX_TIMEOUT:-600}
. "$top_srcdir/tests/linux/lib.sh"
linux_cpus=2
require_linux

run_linux --watch=sample --seed=7 \
	-a "kunit.enable=0 kunit_shutdown=reboot csan_race_test=silent-locked csan_race_test_ms=5000"
case $rc in
0 | 1) ;;
*) fail "exit status $rc: the guest did not run to its end under sampling" ;;
esac
expect_err 'csan-vmm: Linux rebooted'
expect_err "^csan-vmm: booting .* on $linux_cpus vCPUs, .* watch mode sample, "
tr -d '\r' <"$out" | grep -q '^csan-race-test: done$' ||
	fail "the race test did not finish: $(grep 'csan-race-test' "$out" | tail -n 3)"
tr -d '\r' <"$out" | grep -q '^csan-race-test: case silent-locked done' ||
	fail "the lock case did not finish"

sites=$(sed -n 's/^csan-vmm: sampling: \([0-9]*\) sites of [0-9]* instructions in .*/\1/p' "$err")
[ -n "$sites" ] || fail "no sampling start line"
line='^csan-vmm: sampling: \([0-9]*\) sites in the table, \([0-9]*\) code breakpoints armed, \([0-9]*\) hits; .*; \([0-9]*\) data watches, .* \([0-9]*\) reports$'
counts=$(sed -n "s/$line/\\1 \\2 \\3 \\4 \\5/p" "$err")
[ -n "$counts" ] || fail "no sampling counters line at exit"
set -- $counts
echo "sampling: $1 sites, $2 armed, $3 hits, $4 data watches, $5 reports"
[ "$1" = "$sites" ] || fail "the start line says $sites sites, the counters line $1"
[ "$1" -gt 100000 ] || fail "$1 sites: the whole kernel's text has more than 100,000"
[ "$2" -gt 100 ] || fail "$2 code breakpoints armed: the draws did not run"
[ "$3" -gt 0 ] || fail "no code breakpoint was hit in $2"
[ "$4" -gt 0 ] || fail "no data watch armed at $3 hits"

for f in race_test_locked_read race_test_locked_inc; do
	! grep -q "^BUG: KCSAN: .*$f" "$err" ||
		fail "a report names $f: $(grep "^BUG: KCSAN: .*$f" "$err" | head -n 1)"
done

# For the log: the counters, and the races sampling saw (the summary's rows).
grep -E '^csan-vmm: (sampling|code breakpoints|hardware watches):' "$err"
grep -E '^csan-vmm: +[0-9]+ +[0-9.]+s +sample +[a-z+-]*sampling' "$err" || echo "sampling reported no race"
exit 0
