# race-test-sample.sh: --watch=sample (src/vmm/sample/) on the test
# kernel's built-in race test, case racy-plain: race_test_plain_read() on
# CPU 0 and race_test_plain_write() on CPU 1 race plainly on one u64.
# Sampling needs no race detector in the kernel; this one has KCSAN, which
# reports the same race on its own (its reports say "guest soft
# watchpoint"), and which the host's reports must not be confused with.
# --sample-only keeps the draw to the two racing functions, so a run of
# seconds is sure to sample them (over the whole kernel a site's turn
# comes about once in 150,000 draws).  What must hold:
#   - the guest runs the case to its end and reboots;
#   - sampling armed code breakpoints, they were hit, data watches were
#     armed, and it reported;
#   - at least one sampling report has both sides: the reader on cpu 0 in
#     race_test_plain_read, the writer on cpu 1 in race_test_plain_write,
#     one seen by the host sampling breakpoint, the other by a host debug
#     register;
#   - every sampling report is of that race (two sides, or one at
#     unknown origin naming one of the two functions): nothing else.
. "$top_srcdir/tests/lib.sh"
LINUX_TIMEOUT=${LINUX_TIMEOUT:-600}
. "$top_srcdir/tests/linux/lib.sh"
linux_cpus=2
require_linux
src='kernel/csan-race-test/csan_race_test\.c'

run_linux --watch=sample --seed=26 --sample-only=race_test_plain_read,race_test_plain_write \
	-a "kunit.enable=0 kunit_shutdown=reboot csan_race_test=racy-plain csan_race_test_ms=8000"
expect_rc 1
expect_err 'csan-vmm: Linux rebooted'
expect_err "^csan-vmm: booting .* on $linux_cpus vCPUs, .* watch mode sample, "
expect_err '^csan-vmm: sampling: [0-9]+ sites of [0-9]+ instructions in .*, only in race_test_plain_read,race_test_plain_write .* seed 26, 2 code breakpoints drawn every 20 ms, a hit held 5 ms$'
tr -d '\r' <"$out" | grep -q '^csan-race-test: done$' ||
	fail "the race test did not finish: $(grep 'csan-race-test' "$out" | tail -n 3)"

# The counters: breakpoints armed and hit, watches armed, reports made.
line='^csan-vmm: sampling: \([0-9]*\) sites in the table, \([0-9]*\) code breakpoints armed, \([0-9]*\) hits; .*; \([0-9]*\) data watches, \([0-9]*\) trapped another access (\([0-9]*\) of them with both sides marked, not a race), \([0-9]*\) saw the value change untrapped; \([0-9]*\) reports$'
counts=$(sed -n "s/$line/\\1 \\2 \\3 \\4 \\5 \\7 \\8 \\6/p" "$err")
[ -n "$counts" ] || fail "no sampling counters line at exit"
set -- $counts
echo "sampling: $1 sites, $2 armed, $3 hits, $4 watches, $5 trapped, $6 changed, $7 reports"
[ "$1" -ge 2 ] || fail "$1 sites in the table: the two racing functions have a site each"
[ "$2" -gt 0 ] && [ "$3" -gt 0 ] && [ "$4" -gt 0 ] ||
	fail "sampling did not run: $2 breakpoints armed, $3 hits, $4 data watches"
[ "$5" -gt 0 ] || fail "no data watch caught the other side in $4 watches"
[ "$8" = 0 ] || fail "$8 of the trapped accesses taken for marked ones: the race test's are plain"
[ "$7" = $(($5 + $6)) ] || fail "$7 reports from $5 trapped and $6 changed watches"

# The sampling reports, each on its own.
expect_sample_plain_race "$src:[0-9]+\$" ''

# For the log: the run's counters and its first two-sided sampling report.
grep -E '^csan-vmm: (sampling|code breakpoints|hardware watches):' "$err"
show_sample_report
exit 0
