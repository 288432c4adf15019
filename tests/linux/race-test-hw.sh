# race-test-hw.sh: the test kernel's built-in race test
# (tools/linux/race-test, csan_race_test=1) on 2 vCPUs in hw mode, where
# csan-vmm backs stock KCSAN's watchpoints with debug registers
# (src/vmm/guest/linux/linux_watch.c).  What soft mode cannot name, hw mode must, with
# both stacks and a host debug register on the other side:
#   uninstr-writer  the uninstrumented writer against the instrumented reader;
#   irq-same-cpu    the uninstrumented irq_work handler that interrupts
#                   the task's watched 16-byte write on the same CPU, "by
#                   interrupt", its stack ending at the interrupt entry;
# and the race-free pairs (silent-marked, silent-locked) stay silent.
# race-test-soft.sh holds the same kernel to soft mode's answers.
. "$top_srcdir/tests/lib.sh"
LINUX_TIMEOUT=${LINUX_TIMEOUT:-600}
. "$top_srcdir/tests/linux/lib.sh"
linux_cpus=2
require_linux
src='kernel/csan-race-test/csan_race_test\.c'
uninstr='kernel/csan-race-test/csan_race_test_uninstr\.c'
frame() { printf '^ %s\\+0x[0-9a-f]+/0x[0-9a-f]+ %s:[0-9]+$' "$1" "$2"; }

run_linux --watch=hw -a "kunit.enable=0 kunit_shutdown=reboot csan_race_test=1"
expect_rc 1
expect_err 'csan-vmm: Linux rebooted'
expect_err "^csan-vmm: booting .* on $linux_cpus vCPUs, .* watch mode hw, "
tr -d '\r' <"$out" | grep -q '^csan-race-test: done$' ||
	fail "the race test did not finish: $(grep 'csan-race-test' "$out" | tail -n 3)"

# (a) the uninstrumented writer, named, with its stack.
in_order "$err" \
	'^BUG: KCSAN: data-race in race_test_instr_read / race_test_uninstr_write$' \
	'^write to 0x[0-9a-f]+ of 8 bytes by task [0-9]+ on cpu 1:$' \
	"$(frame race_test_uninstr_write "$uninstr")" \
	'^read to 0x[0-9a-f]+ of 8 bytes by task [0-9]+ on cpu 0:$' \
	"$(frame race_test_instr_read "$src")" \
	'^Seen by: (guest soft watchpoint and )?host debug register \(write\), guest soft watchpoint \(read\)$' ||
	fail "uninstr-writer: no two-stack report naming the uninstrumented writer"

# (b) the handler on the watcher's own CPU, by interrupt.
in_order "$err" \
	'^BUG: KCSAN: data-race in race_test_irq_task_write / race_test_uninstr_irq_read$' \
	'^read to 0x[0-9a-f]+ of 8 bytes by interrupt on cpu 0:$' \
	"$(frame race_test_uninstr_irq_read "$uninstr")" \
	' \[interrupt entry\]$' \
	'^write to 0x[0-9a-f]+ of 16 bytes by task [0-9]+ on cpu 0:$' \
	"$(frame race_test_irq_task_write "$src")" \
	'^Seen by: host debug register \(read\), guest soft watchpoint \(write\)$' ||
	fail "irq-same-cpu: no report of the handler on the watcher's CPU by interrupt"

# (c) the race-free pairs: nothing names them.
for f in race_test_marked_read race_test_marked_write race_test_locked_read race_test_locked_inc; do
	! grep -q "^BUG: KCSAN: .*$f" "$err" ||
		fail "a report names $f: $(grep "^BUG: KCSAN: .*$f" "$err" | head -n 1)"
done
expect_linux_backing
