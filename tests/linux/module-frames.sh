# module-frames.sh: frames in a module are symbolized (file:line, the
# module named as the kernel names it) in soft mode, where Linux's KCSAN
# prints them as "func+0x1c/0x80 [csan_race_test]" and csan-vmm reads the
# .ko from the kernel's build tree, and in hw mode, where the host unwinds
# the uninstrumented writer's stack itself and learns from the guest's
# module list where the module lies (src/watch/kmod.c, kmod_guest.c).
. "$top_srcdir/tests/lib.sh"
LINUX_TIMEOUT=${LINUX_TIMEOUT:-600}
. "$top_srcdir/tests/linux/lib.sh"
. "$top_srcdir/tests/linux/module-lib.sh"
require_module_kernel

# Soft mode: KCSAN's own report names the reader alone (unknown origin).
run_module_test --modules="$workload_build"
in_order "$err" \
	'^BUG: KCSAN: data-race in race_test_instr_read' \
	"$(mframe race_test_instr_read 'csan_race_test\.c')" ||
	fail "soft mode: no symbolized module frame of the reader"
! grep -q 'its frames are left out' "$err" || fail "a module was not found: $(grep 'left out' "$err")"

# The same without --modules: found in the build tree of the vmlinux.
run_module_test
in_order "$err" '^BUG: KCSAN: data-race in race_test_instr_read' \
	"$(mframe race_test_instr_read 'csan_race_test\.c')" ||
	fail "soft mode, no --modules: the module was not found in the build tree"

# hw mode: the writer, caught by a debug register, its stack unwound by
# the host through the module's text.
run_module_test --watch=hw --modules="$workload_build"
in_order "$err" \
	'^BUG: KCSAN: data-race in race_test_instr_read / race_test_uninstr_write$' \
	'^write to 0x[0-9a-f]+ of 8 bytes by task [0-9]+ on cpu 1:$' \
	"$(mframe race_test_uninstr_write 'csan_race_test_uninstr\.c')" \
	"$(mframe race_test_uninstr_write_loop 'csan_race_test_uninstr\.c')" \
	'^read to 0x[0-9a-f]+ of 8 bytes by task [0-9]+ on cpu 0:$' \
	"$(mframe race_test_instr_read 'csan_race_test\.c')" ||
	fail "hw mode: the writer's module frames are not symbolized"
exit 0
