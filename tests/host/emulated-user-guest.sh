# emulated-user-guest.sh: a GUEST-ELF given on the command line (the user
# scenario built by `make user-guest`, named by a relative path) is carried
# into the emulated host and run there, in both modes with --compare, the
# comparison's JSON landing at the host path given.
. "$top_srcdir/tests/lib.sh"
require_emulated_host
elf_dir=$top_builddir/tests/user-scenario
[ -f "$elf_dir/csan-guest-my-race" ] || fail "$elf_dir/csan-guest-my-race was not built by make check"
cd "$elf_dir" || fail "cannot enter $elf_dir"
run_host --host=emulated --compare --scenario=my-race --timeout=120 --seed=7 \
	--compare-json="$work/compare.json" csan-guest-my-race
expect_rc 1
expect_out '^csan-vmm --compare: seed 7, timeout 120 s, 2 vCPUs, 1 scenario$'
expect_err '^csan-vmm: booting /csan/guest/csan-guest-my-race \(csan guest\) on 2 vCPUs, .* watch mode hw, '
expect_out '^  my-race +[1-9][0-9]* +[0-9.]+s +[a-z+-]+ +[1-9][0-9]* +[0-9.]+s +[a-z+-]+ +data-race in my_race_poll / my_race_publish$'
grep -q '"type":"compare","seed":7,' "$work/compare.json" ||
	fail "--compare-json did not land: $(head -c 300 "$work/compare.json" 2>&1)"
