# emuhost-silent.sh: an emulated host whose console falls silent (the
# init script says it is alive every 5 s) for CSAN_HARNESS_SILENT_S
# seconds is stopped at once instead of at --timeout: while booting it is
# booted again, once, since nothing of the command ran; while the command
# runs the harness exits 125 saying so (docs/harness.md).  The silence is
# made here: a QEMU started paused (-S) never boots, and a command can
# stop the init script's sign of life.
. "$top_srcdir/tests/lib.sh"
require_emulated_host
qemu=$(command -v "${QEMU_SYSTEM:-qemu-system-x86_64}") || fail "no QEMU (require_emulated_host found one)"

# PAUSED_BOOTS boots start paused (a count kept in $work/boots), later
# ones run as given.
cat >"$work/qemu" <<EOQ
#!/bin/sh
case "\$1" in --version) exec "$qemu" --version ;; esac
n=\$((\$(cat "$work/boots" 2>/dev/null || echo 0) + 1))
echo \$n >"$work/boots"
[ \$n -le "\$PAUSED_BOOTS" ] && set -- "\$@" -S
exec "$qemu" "\$@"
EOQ
chmod +x "$work/qemu"

# A boot that does come up is silent for its first seconds (the kernel
# runs quiet until the init script speaks), longer on a loaded machine:
# a silence limit of 5 s stopped such boots twice in a row beside other
# tests' emulated hosts.  So the runs whose boot must come up get 20 s.
limit=20

# The first boot falls silent: the harness boots again, and the command's
# output and status are those of the second boot.
start=$(date +%s)
PAUSED_BOOTS=1 QEMU_SYSTEM=$work/qemu CSAN_HARNESS_SILENT_S=$limit \
	"$EMUHOST" --timeout 120 -- sh -c 'echo done; exit 7' </dev/null >"$out" 2>"$err"
rc=$?
took=$(($(date +%s) - start))
expect_rc 7
expect_out '^done$'
expect_err "^emuhost: the emulated host fell silent while booting \\(nothing on its console for $limit s\\); QEMU stopped, booting it again\$"
[ "$(cat "$work/boots")" = 2 ] || fail "QEMU started $(cat "$work/boots") times, not twice"
[ "$took" -lt 100 ] || fail "took $took s: the silent boot was not acted on"
# The second boot is a harness re-run: the suite's closing line counts it,
# and the test runs nothing again after it (tests/lib.sh).
said=$(emuhost_booted_again) || fail "emuhost_booted_again did not see the second boot"
case $said in "emulated-host fault, run again: "*) ;; *) fail "not counted: '$said'" ;; esac

# Every boot silent: two boots, then the harness's own failure.
rm -f "$work/boots"
start=$(date +%s)
PAUSED_BOOTS=9 QEMU_SYSTEM=$work/qemu CSAN_HARNESS_SILENT_S=5 \
	"$EMUHOST" --timeout 120 -- true </dev/null >"$out" 2>"$err"
rc=$?
took=$(($(date +%s) - start))
expect_rc 125
expect_err '^emuhost: the emulated host fell silent while booting, twice \(nothing on its console for 5 s\); QEMU stopped$'
[ "$(cat "$work/boots")" = 2 ] || fail "QEMU started $(cat "$work/boots") times, not twice"
[ "$took" -lt 60 ] || fail "took $took s: the silent boots were not acted on"
emuhost_booted_again >/dev/null || fail "after two silent boots a test would boot a third time"

# Silent while the command runs: the command stops the sign of life (the
# init script's loop, whose PID it keeps) and then waits 200 s; the
# harness stops QEMU after $limit s of silence, and does not boot again.
stop_sign_of_life='kill $(cat /tmp/.emuhost-alive.pid)'
rm -f "$work/boots"
start=$(date +%s)
PAUSED_BOOTS=0 QEMU_SYSTEM=$work/qemu CSAN_HARNESS_SILENT_S=$limit \
	"$EMUHOST" --timeout 300 -- sh -c "$stop_sign_of_life && echo stopped && sleep 200; echo done" \
	</dev/null >"$out" 2>"$err"
rc=$?
took=$(($(date +%s) - start))
expect_rc 125
expect_out '^stopped$'
! grep -q '^done$' "$out" || fail "the command ran to its end"
expect_err "^emuhost: the emulated host fell silent while running 'sh -c .*' \\(nothing on its console for $limit s\\); QEMU stopped\$"
expect_err "^emuhost: that is the emulated host's fault, not the guest's \\(docs/harness.md\\): run again\$"
[ "$(cat "$work/boots")" = 1 ] || fail "QEMU started $(cat "$work/boots") times, not once"
[ "$took" -lt 100 ] || fail "took $took s: the silence was not acted on"

# A limit that is not a number is refused, naming the variable.
CSAN_HARNESS_SILENT_S=1m "$EMUHOST" -- true </dev/null >"$out" 2>"$err"
rc=$?
expect_rc 125
expect_err '^emuhost: CSAN_HARNESS_SILENT_S=1m: give a whole number of seconds \(default 90\)$'
