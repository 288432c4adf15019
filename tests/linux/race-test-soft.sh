# race-test-soft.sh: the test kernel's built-in race test
# (tools/linux/race-test, booted with csan_race_test=1) on 2 vCPUs in soft
# watch mode.  First under qemu-system-x86_64 -accel tcg, the reference
# (stock KCSAN, no csan-vmm), then under csan-vmm; in both, every case
# must run and KCSAN must see exactly what it can see:
#   uninstr-writer  an uninstrumented writer against an instrumented
#                   reader: at most "race at unknown origin" naming the
#                   reader, never two stacks;
#   irq-same-cpu    an uninstrumented irq_work handler reading what the
#                   task on the same CPU writes: nothing;
#   silent-marked, silent-locked  race-free pairs: nothing;
#   racy-plain      the control, an instrumented plain race: reported
#                   with both stacks (so the silence above means something).
# Under csan-vmm every KCSAN report on the console must also be one of
# csan-vmm's, symbolized to the race test's file and line.  What a
# debug register adds (hw mode names the uninstrumented sides) is
# another test's.
. "$top_srcdir/tests/lib.sh"
LINUX_TIMEOUT=${LINUX_TIMEOUT:-600}
. "$top_srcdir/tests/linux/lib.sh"
linux_cpus=2
require_linux
qemu=${QEMU_SYSTEM:-qemu-system-x86_64}
command -v "$qemu" >/dev/null 2>&1 || fail "$qemu not found (tools/install-deps.sh installs it)"

append="kunit.enable=0 kunit_shutdown=reboot csan_race_test=1"
src='kernel/csan-race-test/csan_race_test\.c'

# check_cases LOG WHO: the console LOG shows the race test start, run
# every case in order and finish, and each case's closing line says that
# both sides ran and what KCSAN's counters saw over the case.
check_cases() {
	tr -d '\r' <"$1" >"$work/console"
	in_order "$work/console" \
		'^csan-race-test: start: [0-9]+ ms per case, cases: uninstr-writer irq-same-cpu silent-marked silent-locked racy-plain$' \
		'^csan-race-test: case uninstr-writer done: ' '^csan-race-test: case irq-same-cpu done: ' \
		'^csan-race-test: case silent-marked done: ' '^csan-race-test: case silent-locked done: ' \
		'^csan-race-test: case racy-plain done: ' '^csan-race-test: done$' ||
		fail "$2: the race test did not start, run every case and finish: $(grep 'csan-race-test' "$work/console")"
	# One line per case: name, both sides' counts, the handler's runs and
	# runs in a watch (irq-same-cpu, else -), KCSAN's watchpoints, races
	# and races at unknown origin, and how long it ran (ms).
	awk '/^csan-race-test: case [a-z-]+ done: / {
		runs = watch = "-"
		if ($15 == "race_test_uninstr_irq_read") { runs = $19; watch = substr($21, 2) }
		for (i = 1; i < NF; i++)
			if ($i == "KCSAN:")
				print $3, $8, $13, runs, watch, $(i + 1), $(i + 3), $(i + 5), $(NF - 1)
	}' "$work/console" >"$work/cases"
	while read -r name n0 n1 runs watch wp races unknown _; do
		line=$(grep "^csan-race-test: case $name done: " "$work/console")
		[ "$n0" -gt 0 ] && [ "$n1" -gt 0 ] || fail "$2: a side of $name never ran: $line"
		case $name in
		uninstr-writer)
			# The value changed under some watched read, so the race
			# really happened while KCSAN watched.  (KCSAN's race
			# counters are the whole kernel's: a race elsewhere during
			# the case counts too, so silence is checked on the reports,
			# by the functions they name: check_reports.)
			[ "$unknown" -gt 0 ] || fail "$2: no watched read saw the writer's value change: $line"
			;;
		irq-same-cpu)
			# The handler interrupted the task's watch at least once
			# (what KCSAN saw: check_reports).
			[ "$runs" -gt 0 ] && [ "$watch" -gt 0 ] ||
				fail "$2: the handler never ran inside a KCSAN watch of the task: $line"
			;;
		racy-plain)
			[ "$races" -gt 0 ] || fail "$2: KCSAN found no race in the control: $line"
			;;
		esac
		# Marked accesses are never watched; the others must have been.
		[ "$name" = silent-marked ] || [ "$wp" -gt 0 ] ||
			fail "$2: KCSAN set up no watchpoint during $name: $line"
	done <"$work/cases"
	[ "$(wc -l <"$work/cases")" = 5 ] || fail "$2: $(wc -l <"$work/cases") closing lines, want 5"
	awk -v who="$2" '{ printf "%s: %s: sides ran %s and %s times, handler %s (%s in a watch), KCSAN %s watchpoints, %s races, %s unknown origin, %s ms\n", who, $1, $2, $3, $4, $5, $6, $7, $8, $9 }' "$work/cases"
}

# check_reports FILE WHO FRAME_FILE [EXTRA_2 EXTRA_1]: the race test's
# reports in FILE (those whose title names a race_test_ function) have
# only the shapes above, with top frames symbolized to FRAME_FILE (an ERE;
# empty: KCSAN's own, without file:line); two-stack reports have a line
# matching EXTRA_2, one-sided ones EXTRA_1.  Other reports (the kernel's
# own, on the way down) are shown, not checked.
check_reports() {
	frame_file=$3
	if [ -n "$frame_file" ]; then
		frame() { top_frame "$1" "$frame_file"; }
	else
		frame() { printf ' %s\\+0x[0-9a-f]+/0x[0-9a-f]+' "$1"; }
	fi
	tr -d '\r' <"$1" | awk -v ours="$work/ours" '
		$0 == "==================================================================" {
			if (!inside) { n = 0; inside = 1; next }
			inside = 0
			if (line[1] ~ /^BUG: KCSAN: .*race_test_/) {
				print $0 >ours
				for (i = 1; i <= n; i++)
					print line[i] >ours
				print $0 >ours
			} else
				print "other report: " line[1]
			next
		}
		inside { line[++n] = $0 }' >"$work/others"
	[ -e "$work/ours" ] || : >"$work/ours"
	sed "s/^/$2: /" "$work/others"

	# Named in a title, each of these is a report of a case that must
	# stay silent in soft mode.
	for f in race_test_uninstr_write race_test_irq_task_write race_test_uninstr_irq_read \
		race_test_marked_read race_test_marked_write race_test_locked_read race_test_locked_inc; do
		! grep -q "^BUG: KCSAN: .*$f" "$work/ours" ||
			fail "$2: a report names $f: $(grep "^BUG: KCSAN: .*$f" "$work/ours" | head -n 1)"
	done
	! grep -q '^BUG: KCSAN: data-race in race_test_instr_read / ' "$work/ours" ||
		fail "$2: uninstr-writer was reported with two stacks"

	report_shapes=""
	allow_report 'data-race in race_test_instr_read\+0x[0-9a-f]+/0x[0-9a-f]+' \
		"$(access_line 'race at unknown origin, with read' 8 'task [0-9]+' 0)" \
		"$(frame race_test_instr_read)" - - \
		'value changed: 0x[0-9a-f]+ -> 0x[0-9a-f]+' ${5:+"$5"}
	allow_report 'data-race in race_test_plain_read / race_test_plain_write' \
		"$(access_line write 8 'task [0-9]+' 1)" "$(frame race_test_plain_write)" \
		"$(access_line read 8 'task [0-9]+' 0)" "$(frame race_test_plain_read)" ${4:+"$4"}
	# The control's writer checked for a watchpoint just before the
	# reader's began, and stored during it.
	allow_report 'data-race in race_test_plain_read\+0x[0-9a-f]+/0x[0-9a-f]+' \
		"$(access_line 'race at unknown origin, with read' 8 'task [0-9]+' 0)" \
		"$(frame race_test_plain_read)" - - \
		'value changed: 0x[0-9a-f]+ -> 0x[0-9a-f]+' ${5:+"$5"}
	verdict=$(CSAN_REPORT_SHAPES=$report_shapes awk -f "$top_srcdir/tests/reports.awk" "$work/ours") ||
		fail "$2: race test reports that soft mode does not allow:
$verdict"
	grep -q '^BUG: KCSAN: data-race in race_test_plain_read / race_test_plain_write$' "$work/ours" ||
		fail "$2: the control (racy-plain) was not reported with both stacks"
	echo "$2: race test reports: $(grep -c '^BUG: KCSAN: ' "$work/ours"), $(grep '^BUG: KCSAN: ' "$work/ours" | sort | uniq -c | tr -s ' ' | tr '\n' ';')"
	rm -f "$work/ours"
}

# The reference: stock KCSAN under QEMU TCG, the same vmlinux.
timeout 600 "$qemu" -accel tcg,thread=multi -cpu max -smp 2 -m 512 -kernel "$vmlinux" \
	-append "console=ttyS0 reboot=t panic=-1 $append" -display none \
	-serial "file:$work/qemu.log" -monitor none -no-reboot -nodefaults </dev/null ||
	fail "QEMU TCG did not run the race test (status $?): $(tail -n 5 "$work/qemu.log")"
check_cases "$work/qemu.log" "QEMU TCG"
check_reports "$work/qemu.log" "QEMU TCG" ""

# csan-vmm, soft mode.
run_linux --watch=soft -a "$append"
expect_status_by_races
expect_err 'csan-vmm: Linux rebooted'
expect_err "^csan-vmm: booting .* on $linux_cpus vCPUs, .* watch mode soft, "
check_cases "$out" csan-vmm
check_reports "$err" csan-vmm "$src" \
	'Seen by: guest soft watchpoint \(write\), guest soft watchpoint \(read\)' \
	'Seen by: guest soft watchpoint \(read\)'
