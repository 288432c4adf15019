# user-scenario.sh: bring your own scenario.  tests/user-scenario/my-race.c
# lives only here; `make check` built it, with its uninstrumented helper,
# into its own guest ELF through `make user-guest` (the hook users get).
# The split must hold (the scenario object calls the runtime, the helper's
# does not), the image must carry only that scenario, and
# `csan-vmm --compare --scenario=my-race ELF` must find the race: in both
# columns in the emulated host (kvm-amd), in the soft column alone
# directly on PVM, status 1 either way.
. "$top_srcdir/tests/lib.sh"
require_vm_env
elf="$top_builddir/tests/user-scenario/csan-guest-my-race"
[ -f "$elf" ] || fail "$elf was not built by make check"
objs="$elf.objs"
set -- "$objs"/*-my-race.o "$objs"/*-my-race-helper.uninstr.o
[ -f "$1" ] && [ -f "$2" ] || fail "objects missing in $objs: $(ls "$objs" 2>&1)"
nm "$1" | grep -q ' U __tsan_read8$' || fail "my-race.c was not built with -fsanitize=thread"
! nm "$2" | grep -q __tsan_ || fail "my-race-helper.c (USER_UNINSTR) was instrumented"
nm "$2" | grep -q ' T my_race_next$' || fail "my-race-helper.c is not in $2"
"$VMM" --scenario=list "$elf" >"$out" 2>"$err" || fail "--scenario=list on $elf failed"
expect_out '^my-race +a user.s scenario'
[ "$(wc -l <"$out")" = 1 ] || fail "the user guest carries more than its own scenario"

if [ "$CSAN_TEST_ENV" = emuhost ]; then
	json_arg=/dev/stdout json=$out
else
	json_arg=$work/compare.json json=$work/compare.json
fi
carry "$elf"
run_vmm_as_given --compare $(zoo_knobs) --scenario=my-race --timeout=120 --seed=7 \
	--compare-json="$json_arg" "$carried"
expect_rc 1
expect_out '^csan-vmm --compare: seed 7, timeout 120 s, 2 vCPUs, 1 scenario$'
# The poll's plain read is watched (an aligned plain word write counts as
# marked and is not); the publish runs into it.  In every run.
f='tests/user-scenario/my-race\.c'
allow_report 'data-race in my_race_poll / my_race_publish' \
	"$(access_line write 8)" "$(top_frame my_race_publish "$f")" \
	"$(access_line read 8)" "$(top_frame my_race_poll "$f")"
allow_unknown_origin 'data-race in my_race_poll\+0x[0-9a-f]+/0x[0-9a-f]+' \
	read 8 "$(top_frame my_race_poll "$f")"
expect_reports 1
expect_report_counts
expect_out '^csan-result: scenario=my-race status=pass expect=data-race mode=soft .*matched=yes'
race_row='^  my-race +[1-9][0-9]* +[0-9]+\.[0-9]{3}s +[a-z+-]+'
if on_pvm; then
	expect_out '^hw mode not run: data watchpoints do not fire'
	expect_out "$race_row +data-race in my_race_poll / my_race_publish\$"
	expect_no_out 'scenario my-race in hw mode|slowdown'
	grep -q '"hw_available":false' "$json" || fail "JSON lacks hw_available false"
else
	expect_out '^csan-result: scenario=my-race status=pass expect=data-race mode=hw .*matched=yes'
	expect_out "$race_row +[1-9][0-9]* +[0-9]+\\.[0-9]{3}s +[a-z+-]+ +data-race in my_race_poll / my_race_publish\$"
	grep -Eq '"signature":"data-race:my_race_poll/my_race_publish",.*"soft":\{"count":[1-9][0-9]*,.*"hw":\{"count":[1-9]' "$json" ||
		fail "JSON lacks the race found in both modes"
fi
grep -q '^"exit_status":1}$' "$json" || fail "JSON lacks the exit status"
