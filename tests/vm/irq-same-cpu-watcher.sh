# irq-same-cpu-watcher.sh: irq-same-cpu with csan.interrupt_watcher=1:
# the task's watch runs with interrupts on, and the same CPU's timer
# interrupt handler runs into it.  Soft watchpoints must report a data
# race with the handler's side "by interrupt" and the task's "by task",
# on the same CPU, both stacks symbolized: status 1.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm $(zoo_knobs) --append=csan.interrupt_watcher=1 --scenario=irq-same-cpu --timeout=120
expect_rc 1
expect_out '^csan-result: scenario=irq-same-cpu status=pass expect=data-race mode=soft .*expected_reports=[1-9][0-9]* .*matched=yes'
expect_err_in_order '^BUG: KCSAN: data-race in irq_same_cpu_handler / irq_same_cpu_task_update$' \
	'^write to 0x[0-9a-f]+ of 8 bytes by interrupt on cpu [0-9]+:$' \
	'^ irq_same_cpu_handler\+0x[0-9a-f]+/0x[0-9a-f]+ .*scenarios/irq-same-cpu\.c:[0-9]+$' \
	'^ interrupt_dispatch\+' \
	'^read to 0x[0-9a-f]+ of 8 bytes by task [0-9]+ on cpu [0-9]+:$' \
	'^ irq_same_cpu_task_update\+0x[0-9a-f]+/0x[0-9a-f]+ .*scenarios/irq-same-cpu\.c:[0-9]+$' \
	'watch mode: soft'
# Same CPU on both sides: the race is with this CPU's own interrupt.
cpus=$(sed -n '/^BUG: KCSAN: data-race in irq_same_cpu_handler/,/^Reported by/p' "$err" |
	sed -n 's/^.* bytes by .* on cpu \([0-9]*\):$/\1/p' | sort -u | wc -l)
[ "$cpus" = 1 ] || fail "the two sides are on different CPUs"
