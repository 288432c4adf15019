# scenario-list.sh: --scenario=list reads the bundled guest's table without
# booting it; unknown names are refused before anything runs.
. "$top_srcdir/tests/lib.sh"

"$VMM" --scenario=list >"$out" 2>"$err"
rc=$?
expect_rc 0
expect_out '^selftest +[^ ]'
expect_no_out '^(fault|hang|panic) '

"$VMM" --scenario=no-such-scenario >"$out" 2>"$err"
rc=$?
expect_rc 2
expect_err "no scenario 'no-such-scenario'"
expect_err 'scenario=list'
