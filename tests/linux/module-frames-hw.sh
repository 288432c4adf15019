# module-frames-hw.sh: in hw mode the host unwinds the uninstrumented
# writer's stack itself, through the module's text, and learns from the
# guest's module list where the module lies (src/watch/kmod_guest.c): its
# frames are kept and symbolized (file:line, [csan_race_test]).
. "$top_srcdir/tests/lib.sh"
LINUX_TIMEOUT=${LINUX_TIMEOUT:-600}
. "$top_srcdir/tests/linux/lib.sh"
. "$top_srcdir/tests/linux/module-lib.sh"
require_module_kernel

# The writer, caught by a debug register, its stack unwound by
# the host through the module's text.
run_module_test --watch=hw --modules="$workload_modules"
in_order "$err" \
	'^BUG: KCSAN: data-race in race_test_instr_read / race_test_uninstr_write$' \
	'^write to 0x[0-9a-f]+ of 8 bytes by task [0-9]+ on cpu 1:$' \
	"$(mframe race_test_uninstr_write 'csan_race_test_uninstr\.c')" \
	"$(mframe race_test_uninstr_write_loop 'csan_race_test_uninstr\.c')" \
	'^read to 0x[0-9a-f]+ of 8 bytes by task [0-9]+ on cpu 0:$' \
	"$(mframe race_test_instr_read 'csan_race_test\.c')" ||
	fail "hw mode: the writer's module frames are not symbolized"
exit 0
