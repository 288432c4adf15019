# emuhost-stall.sh: a serial port of the command's output that stops
# sending (a transmit interrupt lost in the emulated host: docs/harness.md)
# ends the run within CSAN_HARNESS_STALL_S seconds, with the harness's own
# words and status 125, instead of a run that never ends; a port that
# waits only because our own reader does not read is left alone.  The
# stall is made here with the tty's own flow control: the command turns
# on IXON for its stdout's port, and an XOFF (^S) sent on the same port
# through --stdin stops its output, as a lost interrupt would.
. "$top_srcdir/tests/lib.sh"
require_emulated_host
limit=30

# The command says it is ready on stderr; then the XOFF goes in, and only
# then does it write 300 KB, far more than the tty takes without sending.
mkfifo "$work/in"
ready_then_write='stty -F /dev/ttyS1 ixon && echo ready >&2 && sleep 15 && yes xxxxxxxxxxxxxxx | head -c 300000 && echo && echo done'
start=$(date +%s)
CSAN_HARNESS_STALL_S=$limit "$EMUHOST" --stdin --timeout 300 -- sh -c "$ready_then_write" \
	<"$work/in" >"$out" 2>"$err" &
harness=$!
exec 8>"$work/in"
n=0
until grep -q '^ready$' "$err"; do
	[ $n -lt 1200 ] || { kill $harness; fail "the command never said ready"; }
	kill -0 $harness 2>/dev/null || fail "the harness ended before the command was ready"
	sleep 0.1
	n=$((n + 1))
done
printf '\023' >&8
wait $harness
rc=$?
exec 8>&-
took=$(($(date +%s) - start))
expect_rc 125
expect_err "^emuhost: the emulated host's serial port for 'sh -c .*''s stdout \\(ttyS1\\) stopped sending \\(output waiting, nothing sent for [0-9]+ s\\); QEMU stopped\$"
expect_err "^emuhost: that is the emulated host's fault, not the guest's \\(docs/harness.md\\): run again\$"
! grep -q '^done$' "$out" || fail "the output went on after the XOFF"
[ "$took" -lt 150 ] || fail "took $took s: the stall was not acted on"

# Our own reader stalls for longer than the limit: the port waits for it,
# and the run goes on to its end with all its output.  (The fifo is held
# open read-write so the harness can open it; nothing reads it at first.)
mkfifo "$work/out"
exec 9<>"$work/out"
CSAN_HARNESS_STALL_S=$limit "$EMUHOST" --timeout 300 -- \
	sh -c 'yes yyyyyyyyyyyyyyy | head -c 300000; echo; echo done' \
	</dev/null >"$work/out" 2>"$err" &
harness=$!
sleep $((limit + 40))
cat "$work/out" >"$work/got" 9<&- &
reader=$!
sleep 1
exec 9<&-
wait $harness
rc=$?
wait $reader
expect_rc 0
grep -q '^done$' "$work/got" || fail "the output did not arrive whole: $(wc -c <"$work/got") bytes"
! grep -q 'stopped sending' "$err" || fail "a reader that does not read was taken for a stall"

# A limit that is not a number is refused, naming the variable.
CSAN_HARNESS_STALL_S=1m "$EMUHOST" -- true </dev/null >"$out" 2>"$err"
rc=$?
expect_rc 125
expect_err '^emuhost: CSAN_HARNESS_STALL_S=1m: give a whole number of seconds \(default 60\)$'
exit 0
