# clang-guest.sh: the bundled guest built with clang (GUEST_CC=clang, as
# Linux is often built) symbolizes like the gcc-built one: every frame of
# a counter-nolock report has file:line, relative to the source root.
# The clang guest is configured and built once, in the build tree
# (tests/clang-guest/), from this source tree; without clang the test
# skips.
. "$top_srcdir/tests/lib.sh"
require_vm_env
command -v clang >/dev/null 2>&1 || skip "clang not installed (Debian package clang)"
cdir="$top_builddir/tests/clang-guest"
elf="$cdir/src/guest/csan-guest"
# One build at a time, whichever environment's test comes first.
mkdir -p "$cdir"
(
	flock 9
	if [ ! -f "$cdir/config.status" ]; then
		(cd "$cdir" && "$top_srcdir/configure" GUEST_CC=clang --disable-fuzz) \
			>"$cdir/configure.out" 2>&1 || exit 1
	fi
	make -C "$cdir/src/guest" csan-guest >"$cdir/make.out" 2>&1
) 9>"$cdir/.lock" || fail "building the guest with clang failed: see $cdir/configure.out and $cdir/make.out"
strings -a "$elf" | grep -q "clang version" || fail "$elf was not built by clang (no clang producer in its DWARF)"
carry "$elf"
run_vmm $(zoo_knobs) --scenario=counter-nolock --timeout=120 "$carried"
expect_rc 1
expect_out '^csan-result: scenario=counter-nolock status=pass .*matched=yes'
expect_err_in_order '^BUG: KCSAN: data-race in counter_nolock_inc / counter_nolock_inc$' \
	'^ counter_nolock_inc\+0x[0-9a-f]+/0x[0-9a-f]+ src/guest/scenarios/counter-nolock\.c:[0-9]+$' \
	'^ counter_nolock_step\+0x[0-9a-f]+/0x[0-9a-f]+ src/guest/scenarios/counter-nolock\.c:[0-9]+$' \
	'^ zoo_worker\+0x[0-9a-f]+/0x[0-9a-f]+ src/guest/kernel/zoo\.c:[0-9]+$'
# Every frame of every stack: a function and file:line, nothing bare.
bad=$(awk '/^BUG: KCSAN/ { in_report = 1 } /^Reported by/ { in_report = 0 }
	in_report && /^ / && !/^ [^ ]+ [^ ]+:[0-9]+( \[inline\])?$/ && !/^ \.\.\.$/ { print }' "$err")
[ -z "$bad" ] || fail "frames without file:line in a clang-built guest's report: $bad"
expect_no_runtime_frames
