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

# The sampling reports, each on its own: the text between two rules.
# Patterns reach awk through its environment (-v would process their
# backslashes, differently in mawk and gawk).
CSAN_SRC=$src awk '
	function frame(f) { return "^ " f "\\+0x[0-9a-f]+/0x[0-9a-f]+ " ENVIRON["CSAN_SRC"] ":[0-9]+$" }
	function check(   i, n, two, one) {
		if (!sampling)
			return
		nrep++
		n = 0
		for (i = 1; i <= nl; i++)
			if (l[i] ~ / to 0x[0-9a-f]+ of 8 bytes by task [0-9]+ on cpu [0-9]+:$/)
				acc[++n] = i
		two = n == 2 &&
			l[1] ~ /^BUG: KCSAN: data-race in race_test_plain_read \/ race_test_plain_write$/ &&
			((l[acc[1]] ~ /^read to .* on cpu 0:$/ && l[acc[1] + 1] ~ frame("race_test_plain_read") &&
			  l[acc[2]] ~ /^write to .* on cpu 1:$/ && l[acc[2] + 1] ~ frame("race_test_plain_write")) ||
			 (l[acc[1]] ~ /^write to .* on cpu 1:$/ && l[acc[1] + 1] ~ frame("race_test_plain_write") &&
			  l[acc[2]] ~ /^read to .* on cpu 0:$/ && l[acc[2] + 1] ~ frame("race_test_plain_read"))) &&
			seen ~ /^Seen by: host debug register \((read|write)\), host sampling breakpoint \((read|write)\)$/
		one = n == 1 &&
			l[1] ~ /^BUG: KCSAN: data-race in race_test_plain_(read|write)\+0x[0-9a-f]+\/0x[0-9a-f]+$/ &&
			l[acc[1]] ~ /^race at unknown origin, with (read|write) to / &&
			seen ~ /^Seen by: host sampling breakpoint \((read|write)\)$/
		if (two)
			ntwo++
		else if (!one) {
			bad++
			print "a sampling report of another shape:"
			for (i = 1; i <= nl; i++)
				print "    | " l[i]
		}
	}
	BEGIN { rule = "=================================================================="; in_rep = 0 }
	$0 == rule {
		if (in_rep) { check(); in_rep = 0 } else { in_rep = 1; nl = 0; sampling = 0; seen = "" }
		next
	}
	in_rep {
		l[++nl] = $0
		if ($0 ~ /^Seen by:/) { seen = $0; sampling = $0 ~ /host sampling breakpoint/ }
	}
	END {
		printf "sampling reports: %d, with both sides: %d\n", nrep, ntwo
		exit (bad || !ntwo) ? 1 : 0
	}' "$err" || fail "no two-sided sampling report of race_test_plain_read / race_test_plain_write on cpus 0 and 1, or one of another shape (above)"

# For the log: the run's counters and its first sampling report.
grep -E '^csan-vmm: (sampling|code breakpoints|hardware watches):' "$err"
awk 'BEGIN { rule = "==================================================================" }
	$0 == rule { if (in_rep) { in_rep = 0; if (sampling && !shown) { shown = 1; print rule; printf "%s", text; print rule } }
		     else { in_rep = 1; text = ""; sampling = 0 } ; next }
	in_rep { text = text $0 "\n"; if ($0 ~ /^Seen by: host debug register .*host sampling breakpoint/) sampling = 1 }' "$err"
exit 0
