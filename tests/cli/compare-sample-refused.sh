# compare-sample-refused.sh: --compare=MODES naming sample on the bundled
# guest is refused before anything boots: sampling draws its sites from a
# Linux kernel's vmlinux, and the bundled guest has soft watchpoints of its
# own.  The message names the modes asked for and the ones that do apply.
. "$top_srcdir/tests/lib.sh"

# refused MODES SAID INSTEAD: --compare=MODES refused, said as --compare=SAID
# (run order), with --compare=INSTEAD suggested.
refused() {
	modes=$1 said=$2 instead=$3
	timeout 60 "$VMM" --compare="$modes" --scenario=counter-nolock >"$out" 2>"$err"
	rc=$?
	expect_rc 2
	expect_err "^csan-vmm: --compare=$said: sampling is for a Linux kernel; the csan guest .*/csan-guest has soft watchpoints of its own: --compare=$instead\$"
	[ "$(wc -l <"$err")" = 1 ] || fail "more than the one line: $(cat "$err")"
	[ ! -s "$out" ] || fail "a table or a console where nothing should have run: $(head -n 3 "$out")"
}
refused soft,hw,sample soft,hw,sample soft,hw
# The list's order is not the run order: said in run order.
refused sample,soft soft,sample soft
# sample alone: the comparison the bundled guest has.
refused sample sample soft,hw
