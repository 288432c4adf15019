# emuhost-lockup.sh: when the emulated host's own kernel reports a CPU
# stuck (its watchdog's "soft lockup" line) for CSAN_HARNESS_LOCKUP_S
# seconds or more, the harness stops QEMU at once, says so, and exits
# 125, instead of waiting for --timeout while the command makes no
# progress (docs/harness.md).  The report is written to the emulated
# host's kernel log by the command itself, as its watchdog would; a
# report under the limit must change nothing.
. "$top_srcdir/tests/lib.sh"
require_emulated_host
lead='watchdog: BUG: soft lockup - CPU#1 stuck for'

# Under the limit: the command runs to its end.
CSAN_HARNESS_LOCKUP_S=120 "$EMUHOST" --timeout 120 -- \
	sh -c "echo '<2>$lead 40s! [khugepaged:36]' >/dev/kmsg; sleep 8; echo done" \
	</dev/null >"$out" 2>"$err"
rc=$?
expect_rc 0
expect_out '^done$'
! grep -q 'locked up' "$err" || fail "a 40 s stall under the 120 s limit stopped the run"

# Over it: stopped within seconds, long before the command or --timeout ends.
start=$(date +%s)
CSAN_HARNESS_LOCKUP_S=120 "$EMUHOST" --timeout 300 -- \
	sh -c "echo '<2>$lead 205s! [khugepaged:36]' >/dev/kmsg; sleep 200; echo done" \
	</dev/null >"$out" 2>"$err"
rc=$?
took=$(($(date +%s) - start))
expect_rc 125
! grep -q '^done$' "$out" || fail "the command ran to its end"
expect_err "^emuhost: the emulated host's kernel locked up while running 'sh -c .*' \\(a CPU stuck for 205 s: $lead 205s! \\[khugepaged:36\\]\\); QEMU stopped\$"
expect_err "^emuhost: that is the emulated host's fault, not the guest's \\(docs/harness.md\\): run again\$"
[ "$took" -lt 150 ] || fail "stopping took $took s: the lockup was not acted on"

# A limit that is not a number is refused, naming the variable.
CSAN_HARNESS_LOCKUP_S=2m "$EMUHOST" -- true </dev/null >"$out" 2>"$err"
rc=$?
expect_rc 125
expect_err '^emuhost: CSAN_HARNESS_LOCKUP_S=2m: give a whole number of seconds \(default 120\)$'
