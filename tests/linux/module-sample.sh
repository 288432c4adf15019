# module-sample.sh: --watch=sample in a loaded module (issue 26, point 1:
# sites "in the kernel's text (and loaded modules')").  The workload
# kernel's race test is the module csan_race_test.ko, loaded by
# --run='insmod ...' with its racy-plain case: race_test_plain_read() on
# CPU 0 and race_test_plain_write() on CPU 1 race plainly on one u64.
# --sample-only names the two functions, which the vmlinux does not hold:
# sampling starts with no site and waits for the module
# (src/vmm/sample/sample_modules.c), whose text it decodes from guest
# memory when the module list shows it.  What must hold:
#   - the guest runs the case to its end;
#   - the module's sites joined the draw (the "module csan_race_test at
#     ADDR: N sites" line), and the closing line counts it;
#   - at least one sampling report has both sides, each function's module
#     frame symbolized ("[csan_race_test]", file:line): the reader on
#     cpu 0, the writer on cpu 1, one seen by the host sampling
#     breakpoint, the other by a host debug register;
#   - every sampling report is of that race.
# The period is longer than the run (--sample-period=60000): with both
# sites live at once a redraw changes nothing here, and the module list
# must still be read every 100 ms and the module's sites drawn as soon as
# they come, not a period later (the tick once slept the whole period
# before its first look).
# KCSAN in this kernel reports the race too, on its own (those reports
# say "guest soft watchpoint"); they are not counted here.
. "$top_srcdir/tests/lib.sh"
LINUX_TIMEOUT=${LINUX_TIMEOUT:-600}
. "$top_srcdir/tests/linux/lib.sh"
. "$top_srcdir/tests/linux/module-lib.sh"
require_module_kernel
"$VMM" --help | grep -q -- '--sample-only' || skip "this csan-vmm has no --watch=sample"

run_sample_once() {
	timeout "$VMM_WALL_LIMIT" "$VMM" --cpus=2 --memory=256M --timeout="$LINUX_TIMEOUT" \
		--watch=sample --seed=26 --sample-only=race_test_plain_read,race_test_plain_write \
		--sample-period=60000 --report-json="$work/r.json" \
		--add="$ko:/csan_race_test.ko" \
		--run='insmod /csan_race_test.ko csan_race_test=racy-plain csan_race_test_ms=8000' \
		"$kernel" </dev/null >"$out" 2>"$err"
	rc=$?
	[ "$rc" != 124 ] || fail "csan-vmm still running after ${VMM_WALL_LIMIT}s"
}
retry_nested_state_lost run_sample_once
tr -d '\r' <"$out" | grep -q '^csan-race-test: done$' ||
	fail "the race test did not finish: $(tr -d '\r' <"$out" | grep 'csan-race-test' | tail -n 3)"
expect_rc 1
expect_err '^csan-vmm: sampling: 0 sites of [0-9]+ instructions in .*, only in race_test_plain_read,race_test_plain_write '
expect_err '^csan-vmm: warning: sampling: no site in .* matches --sample-only=race_test_plain_read,race_test_plain_write; sampling waits for modules$'
mline=$(grep -E '^csan-vmm: sampling: module csan_race_test at 0xffffffff[0-9a-f]+: [0-9]+ sites of [0-9]+ instructions, only in race_test_plain_read,race_test_plain_write, [0-9]+ in its exception table ' "$err") ||
	fail "the module's text did not join the draw: $(grep 'sampling' "$err" | head -n 5)"
msites=$(echo "$mline" | sed 's/.*: \([0-9]*\) sites of.*/\1/')
echo "$mline"
[ "$msites" -ge 2 ] || fail "$msites sites in the two racing functions of the module"
# One draw in the whole run (the period outlasts it): both sites must fit
# the default two code breakpoints.
[ "$msites" -le 2 ] || fail "$msites sites in the two racing functions: more than the 2 code breakpoints of the run's single draw"

# The counters: the module sampled, its breakpoints hit, watches armed.
line='^csan-vmm: sampling: 0 sites in the table, \([0-9]*\) code breakpoints armed, \([0-9]*\) hits; .*; \([0-9]*\) data watches, \([0-9]*\) trapped another access (\([0-9]*\) of them with both sides marked, not a race), \([0-9]*\) saw the value change untrapped; \([0-9]*\) reports$'
counts=$(sed -n "s/$line/\\1 \\2 \\3 \\4 \\6 \\7 \\5/p" "$err")
[ -n "$counts" ] || fail "no sampling counters line at exit"
set -- $counts
echo "sampling: $1 armed, $2 hits, $3 watches, $4 trapped, $5 changed, $6 reports"
[ "$1" -gt 0 ] && [ "$2" -gt 0 ] && [ "$3" -gt 0 ] ||
	fail "sampling did not run in the module: $1 breakpoints armed, $2 hits, $3 data watches"
[ "$4" -gt 0 ] || fail "no data watch caught the other side in $3 watches"
[ "$7" = 0 ] || fail "$7 of the trapped accesses taken for marked ones: the race test's are plain"
expect_err "^csan-vmm: sampling modules: [0-9]+ looks at the list, 1 modules sampled \\($msites sites\\), 0 reads that failed; "
# The same counters in --report-json's sampling record, just before the exit record.
rec=$(tail -n 2 "$work/r.json" | head -n 1)
want="{\"type\":\"sampling\",\"sites\":0,\"armed\":$1,\"hits\":$2,\"skipped\":{.*},\"retired_rewritten\":0,\"watches\":$3,\"trapped\":$4,\"marked\":$7,\"changed\":$5,\"reports\":$6,\"modules\":{\"looks\":[0-9]+,\"sampled\":1,\"sites\":$msites,\"failed\":0,"
echo "$rec" | grep -Eq "^$want" || fail "the sampling record is not the counters line's: $rec"
tail -n 1 "$work/r.json" | grep -q '^{"type":"exit",' || fail "the exit record is not the last"
# Looked at every 100 ms for the whole case (8 s of it alone), whatever the period.
looks=$(sed -n 's/^csan-vmm: sampling modules: \([0-9]*\) looks at the list, .*/\1/p' "$err")
[ "${looks:-0}" -ge 40 ] || fail "the module list was read ${looks:-0} times in an 8 s case, at --sample-period=60000"

# The sampling reports, each on its own, their frames the module's.
expect_sample_plain_race '\[csan_race_test\] .*kernel/csan-race-test/csan_race_test\.c:[0-9]+$' ' in the module'

# For the log: the run's counters and its first two-sided sampling report.
grep -E '^csan-vmm: (sampling|code breakpoints)' "$err"
show_sample_report
exit 0
