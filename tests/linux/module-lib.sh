# tests/linux/module-lib.sh: what the module-frame and ORC tests share
# (sourced after tests/lib.sh and tests/linux/lib.sh).  They load the race
# test as a module (csan_race_test.ko of the second test kernel, built by
# tools/linux/build-vmlinux.sh --config=workload) with --run='insmod ...'
# and boot that kernel's cached bzImage, its vmlinux found beside it.

# require_module_kernel: skip until the second test kernel and --run are
# here; set $kernel (the bzImage) and $ko (the race test module).
require_module_kernel() {
	command -v require_linux_workload >/dev/null 2>&1 ||
		skip "this tree has no require_linux_workload (tests/linux/lib.sh): the second test kernel is not wired in yet"
	"$VMM" --help | grep -q -- '--run=' ||
		skip "this csan-vmm has no --run yet"
	require_linux_workload
	# The cached kernel (bzImage, its vmlinux beside it, its modules): a
	# build tree is shared by every checkout of this machine, and another
	# one's build relinks it.
	kernel=$bzimage
	ko=$workload_modules/kernel/kernel/csan-race-test-module/csan_race_test.ko
	[ -r "$kernel" ] || fail "no $kernel: the workload kernel's bzImage"
	[ -r "$ko" ] || fail "no $ko (the race test as a module)"
}

# run_module_test ARGS...: the race test's uninstr-writer case, loaded as
# a module, on 2 vCPUs; csan-vmm ARGS; sets $rc, fills $out and $err.
run_module_test_once() {
	timeout "$VMM_WALL_LIMIT" "$VMM" --cpus=2 --memory=256M --timeout="$LINUX_TIMEOUT" \
		--add="$ko:/csan_race_test.ko" \
		--run='insmod /csan_race_test.ko csan_race_test=uninstr-writer' \
		"$@" "$kernel" </dev/null >"$out" 2>"$err"
	rc=$?
	[ "$rc" != 124 ] || fail "csan-vmm still running after ${VMM_WALL_LIMIT}s"
}
run_module_test() {
	retry_nested_state_lost run_module_test_once "$@"
	tr -d '\r' <"$out" | grep -q 'csan-race-test: done' ||
		fail "the race test did not finish: $(tr -d '\r' <"$out" | grep -i 'csan.race\|insmod' | tail -n 3)"
}

# mframe FUNC FILE: a symbolized frame of the module, as csan-vmm prints it.
mframe() {
	printf '^ %s\\+0x[0-9a-f]+/0x[0-9a-f]+ \\[csan_race_test\\] .*%s:[0-9]+$' "$1" "$2"
}
