# sample-pause.sh: the control socket's sample_paused on a --watch=sample
# run of the test kernel's racy-plain case (tests/helpers/sample-pause.sh):
# its two functions, the only ones sampled, run all the time, so what the
# guest does is known: hits come while their breakpoints are armed.  What
# must hold:
#   - before the pause, sites were armed and hit;
#   - paused, sampling's counters stand still over 4 s: no site drawn
#     anew, no hit;
#   - resumed, the sites are drawn again at once and hit again;
#   - the run ends on quit (status 0 or 1: the race may have been reported);
#   - no debug exit was handed to the guest: this kernel sets no debug
#     register and steps nothing itself, and the late #DB of a step past a
#     code breakpoint that a pause's load gave up is the engine's
#     (hwwatch/code_bp.c, hw_code_late_step).
. "$top_srcdir/tests/lib.sh"
LINUX_TIMEOUT=${LINUX_TIMEOUT:-600}
. "$top_srcdir/tests/linux/lib.sh"
linux_cpus=2
require_linux
"$VMM" --help | grep -q -- '--sample-only' || skip "this csan-vmm has no --watch=sample"

helper="$top_srcdir/tests/helpers/sample-pause.sh"
pause_once() {
	if [ "$linux_env" = emulated ]; then
		"$EMUHOST" --timeout "$VMM_WALL_LIMIT" --file "$VMM" --file "$vmlinux:/csan/vmlinux" \
			--file "$top_srcdir/tests/helpers" \
			-- sh /csan/helpers/sample-pause.sh /csan/csan-vmm /tmp /csan/vmlinux \
			>"$out" 2>"$err"
		rc=$?
	else
		hdir=$(mktemp -d "$work/helper.XXXXXX") || exit 99
		timeout "$VMM_WALL_LIMIT" sh "$helper" "$VMM" "$hdir" "$vmlinux" \
			</dev/null >"$out" 2>"$err"
		rc=$?
	fi
}
if [ "$linux_env" = emulated ]; then
	retry_nested_state_lost pause_once
	[ "$rc" != 125 ] || fail "the emulated host failed to run the helper"
else
	pause_once
fi
cat "$out"
expect_rc 0

# step NAME: "A H", sampling's armed and hits counts at the end of that stretch.
step() {
	sed -n "s/^$1 armed=\\([0-9]*\\) hits=\\([0-9]*\\)\$/\\1 \\2/p" "$out"
}
set -- $(step sampling) $(step paused) $(step still-paused) $(step resumed)
[ $# = 8 ] || fail "the helper did not print every stretch's counters"
[ "$1" -gt 0 ] && [ "$2" -gt 0 ] || fail "before the pause: $1 armed, $2 hits"
[ "$(grep -c '^set sample_paused rc=0$' "$out")" = 2 ] || fail "the pause or the resume was refused"
! grep -q '^the case ended before the last stretch$' "$out" ||
	fail "the race test's case ended before sampling resumed: the host was too slow to test this"
[ "$5" = "$3" ] && [ "$6" = "$4" ] ||
	fail "paused, sampling went on: armed $3 -> $5, hits $4 -> $6 over 4 s"
[ "$7" -gt "$5" ] || fail "resumed, no site was drawn again: armed $5 -> $7"
[ "$8" -gt "$6" ] || fail "resumed, no hit in 3 s: hits $6 -> $8"
grep -q '^vmm rc=[01]$' "$out" || fail "csan-vmm did not end on quit: $(grep '^vmm rc=' "$out")"
expect_err '^csan-vmm: stopped on request \(quit\)'
expect_err '^csan-vmm: hardware watches: .*\), 0 debug exits not ours; '
exit 0
