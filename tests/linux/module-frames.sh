# module-frames.sh: frames in a module are symbolized (file:line, the
# module named as the kernel names it) in soft mode, where Linux's KCSAN
# prints them as "func+0x1c/0x80 [csan_race_test]" and csan-vmm reads the
# .ko under --modules or from the kernel's build tree (src/watch/kmod.c).
# Each report is printed once: on stderr, with a note in its block's
# place on stdout; with --vmlinux=none the blocks stay on stdout.
# module-frames-hw.sh does hw mode.
. "$top_srcdir/tests/lib.sh"
LINUX_TIMEOUT=${LINUX_TIMEOUT:-600}
. "$top_srcdir/tests/linux/lib.sh"
. "$top_srcdir/tests/linux/module-lib.sh"
require_module_kernel

# Soft mode: KCSAN's own report names the reader alone (unknown origin).
run_module_test --modules="$workload_modules"
in_order "$err" \
	'^BUG: KCSAN: data-race in race_test_instr_read' \
	"$(mframe race_test_instr_read 'csan_race_test\.c')" ||
	fail "soft mode: no symbolized module frame of the reader"
! grep -q 'its frames are left out' "$err" || fail "a module was not found: $(grep 'left out' "$err")"
expect_reports_once

# The same without --modules: found in the build tree of the vmlinux.
run_module_test
in_order "$err" '^BUG: KCSAN: data-race in race_test_instr_read' \
	"$(mframe race_test_instr_read 'csan_race_test\.c')" ||
	fail "soft mode, no --modules: the module was not found in the build tree"
expect_reports_once

# No vmlinux: csan-vmm cannot print the reports, so Linux's blocks stay
# on stdout as Linux printed them, and are counted.
run_module_test --vmlinux=none
expect_blocks_stay
expect_rc 1
echo "no vmlinux: $blocks KCSAN blocks left on stdout"

exit 0
