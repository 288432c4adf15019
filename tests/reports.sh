# tests/reports.sh: checks of each race report and of the counts (sourced by lib.sh).
#
# A row test declares the reports it allows, one shape each, then checks
# them all:
#
#	allow_report 'data-race in f / g' \
#		"$(access_line write 8)" "$(top_frame f scenarios/f\\.c)" \
#		"$(access_line read 8)" "$(top_frame g scenarios/f\\.c)"
#	expect_reports 1
#
# Every report csan-vmm printed must fit one allowed shape, side 1 and
# side 2 each pinned to its own access line and top frame; a report of
# any other shape fails the test.  A test that allows nothing and calls
# expect_reports 0 fails on any report at all.

report_shapes=""

# allow_report TITLE ACCESS1 FRAME1 ACCESS2 FRAME2 [EXTRA...]: allow
# reports titled "BUG: KCSAN: TITLE" whose side 1 has access line ACCESS1
# and first frame FRAME1, and side 2 ACCESS2 and FRAME2 (both "-": the
# report has one side only), and that have a line matching each EXTRA.
# All are EREs for whole lines.
allow_report() {
	[ $# -ge 5 ] || {
		echo "ERROR: allow_report needs a title and two sides, got: $*"
		exit 99
	}
	shape=$(printf '%s\t' "$@")
	report_shapes="$report_shapes${report_shapes:+
}${shape%	}"
}

# access_line KIND [SIZE [BY [CPU]]]: an ERE for the access line of a
# side: KIND (an ERE: "write", "read \(marked\)", "assert no writes",
# "race at unknown origin, with read") to an address, SIZE bytes (default
# any) by BY (default "task [0-9]+"; "interrupt" for a handler) on CPU
# (default any).
access_line() {
	printf '%s to 0x[0-9a-f]+ of %s bytes by %s on cpu %s:' \
		"$1" "${2:-[0-9]+}" "${3:-task [0-9]+}" "${4:-[0-9]+}"
}

# marked KIND: an ERE for the kind of a marked access (KIND read, write
# or read-write) on side 1, the access that ran into the watchpoint.  In
# hw mode a debug register may be what saw it, and the trapping
# instruction does not say whether the source marked it: a plain load or
# store reads as "read" or "write", a locked read-modify-write as
# "read-write (marked)", and one it cannot decode as "write".
marked() {
	if [ "$watch_mode" != hw ]; then
		printf '%s \\(marked\\)' "$1"
	elif [ "$1" = read-write ]; then
		printf '(read-write \\(marked\\)|read-write|write)'
	else
		printf '%s( \\(marked\\))?' "$1"
	fi
}

# top_frame FUNC FILE: an ERE for a frame in FUNC (with +offset/size)
# symbolized to FILE (an ERE, the end of the path) and a line.
top_frame() {
	printf ' %s\\+0x[0-9a-f]+/0x[0-9a-f]+ .*%s:[0-9]+' "$1" "$2"
}

# allow_unknown_origin TITLE KIND SIZE FRAME [EXTRA...]: allow the
# one-sided report of the row's race, titled "BUG: KCSAN: TITLE": the
# watcher (access KIND of SIZE bytes, top frame FRAME) saw the value
# change with no other side, "race at unknown origin, with KIND".  The
# writer was uninstrumented, or an instrumented one looked for a
# watchpoint just before the watcher armed it and stored just after.
allow_unknown_origin() {
	# Names of its own: sh has no locals, and callers hold $t and $f.
	uo_title=$1 uo_access=$(access_line "race at unknown origin, with $2" "$3") uo_frame=$4
	shift 4
	allow_report "$uo_title" "$uo_access" "$uo_frame" - - \
		'value changed: 0x[0-9a-f]+ -> 0x[0-9a-f]+' "$@"
}

# expect_reports MIN: every report in $err fits an allowed shape, there
# are at least MIN, and as many as the race summaries say were printed.
# Sets $nreports.
expect_reports() {
	verdict=$(CSAN_REPORT_SHAPES=$report_shapes CSAN_REPORT_TASK_RULE=cpu+1 \
		awk -f "$top_srcdir/tests/reports.awk" "$err")
	vrc=$?
	nreports=$(printf '%s\n' "$verdict" | sed -n 's/^reports=//p')
	[ "$vrc" = 0 ] || fail "reports that the row does not allow:
$verdict"
	[ "$nreports" -ge "$1" ] || fail "$nreports race reports printed, want at least $1"
	printed=$(sum_of 's/^csan-vmm: race summary: .* reports\{0,1\}, \([0-9][0-9]*\) printed, .*/\1/p' "$err")
	[ "$nreports" = "$printed" ] ||
		fail "$nreports race reports on stderr, but the race summaries say $printed were printed"
}

# expect_report_counts: the guest's own count (reports= on its result
# line), the host's race summary (its total and the sum of its table), the
# closing line and the counters csan-vmm prints at exit all count the same
# reports, so none was lost or doubled between the guest and the host.
# With --compare, the sums over both runs.
expect_report_counts() {
	guest=$(sum_of 's/^csan-result: .* reports=\([0-9][0-9]*\) .*/\1/p' "$out")
	grep -q '^csan-result: .* reports=[0-9]' "$out" || fail "no reports= on the guest's result line"
	total=$(sum_of 's/^csan-vmm: race summary: [0-9]* distinct races\{0,1\} in \([0-9][0-9]*\) reports\{0,1\}, .*/\1/p' "$err")
	# The race summary's table: the sum of its counts, and its rows.
	read -r table rows <<EOF
$(awk '/^csan-vmm: +count +first seen/ { t = 1; next }
		t && /^csan-vmm: +[0-9]+ +[0-9.]+s / { n += $2; r++; next }
		{ t = 0 }
		END { print n + 0, r + 0 }' "$err")
EOF
	closing=$(sum_of 's/^csan-vmm: guest finished, \([0-9][0-9]*\) race reports\{0,1\}$/\1/p' "$err")
	counters=$(sum_of 's/^csan-vmm: counters: .* reports=\([0-9][0-9]*\) .*/\1/p' "$err")
	echo "reports: guest $guest, race summary $total, its table $table, closing line $closing, counters $counters"
	[ "$total" = "$guest" ] ||
		fail "the guest sent $guest reports, the host's race summary counts $total"
	[ "$table" = "$guest" ] ||
		fail "the guest sent $guest reports, the race summary's table adds up to $table"
	[ "$counters" = "$guest" ] ||
		fail "the guest's result line says reports=$guest, its counters at exit reports=$counters"
	# A row that failed ends on "guest reported failure" instead.
	[ "$rc" != 1 ] || [ "$closing" = "$guest" ] ||
		fail "the guest sent $guest reports, csan-vmm's closing line says $closing"
	# What dedup muted: a repeat within the interval is counted, never a
	# first sighting, so each race of the summary's table was printed at
	# least once, under its own title, and the table has one row per
	# distinct race the summary counts.
	distinct=$(sum_of 's/^csan-vmm: race summary: \([0-9][0-9]*\) distinct race.*/\1/p' "$err")
	[ "$rows" = "$distinct" ] ||
		fail "the race summary counts $distinct distinct races, its table has $rows rows"
	sed -n 's/^csan-vmm: \{1,\}[0-9]\{1,\} \{1,\}[0-9.]\{1,\}s \{1,\}[a-z]\{1,\} \{1,\}[a-z+-]\{1,\} \{1,\}//p' "$err" |
		sort -u >"$work/race-rows"
	while IFS= read -r race; do
		grep -Fqx "BUG: KCSAN: $race" "$err" ||
			fail "the race summary lists '$race', which no printed report has as its title"
	done <"$work/race-rows"
	# Which mechanism saw a report, against what the host counted: each
	# printed report a debug register saw needs a hit of the engine's own
	# (none in soft mode, where its line is missing), and the race summary
	# names the debug register for some race when a report does.
	dr_seen=$(grep -c '^Seen by: .*host debug register' "$err")
	hw_hits=$(engine_count hits)
	[ "$dr_seen" -le "$hw_hits" ] ||
		fail "$dr_seen reports say a host debug register saw them, the engine counted $hw_hits hits"
	[ "$dr_seen" = 0 ] || grep -Eq '^csan-vmm: +[0-9]+ +[0-9.]+s +[a-z]+ +[a-z+-]*debug-register' "$err" ||
		fail "$dr_seen reports say a host debug register saw them, the race summary names none"
}

# engine_count armed|hits: the debug-register engine's own count on its
# "hardware watches" line at exit, summed over the runs in $err (0 when
# no run had the engine, as in soft mode).
engine_count() {
	case $1 in
	armed) sum_of 's/^csan-vmm: hardware watches: \([0-9][0-9]*\) armed, .*/\1/p' "$err" ;;
	hits) sum_of 's/^csan-vmm: hardware watches: .*, \([0-9][0-9]*\) hits (.*/\1/p' "$err" ;;
	esac
}

# sum_of SED_SCRIPT FILE: the sum of the numbers SED_SCRIPT prints from FILE.
sum_of() {
	sed -n "$1" "$2" | awk '{ n += $1 } END { print n + 0 }'
}

# expect_watched [MIN_ITERATIONS]: a row that reports nothing really
# watched: the counters csan-vmm prints at exit show watchpoints set up,
# the workers ran at least MIN_ITERATIONS steps, and in hw mode debug
# registers were armed (expect_watch_mode).  The default minimum: a
# 3-second race-free row takes millions of steps in the emulated host,
# but on PVM, which emulates guest kernel code, some 3,000, and under a
# loaded machine under 1,000.
expect_watched() {
	setup=$(sed -n 's/^csan-vmm: counters: .* setup_watchpoints=\([0-9][0-9]*\) .*/\1/p' "$err" | tail -n 1)
	[ -n "$setup" ] && [ "$setup" -gt 0 ] ||
		fail "setup_watchpoints=${setup:-missing} at exit: the run never watched"
	min=${1:-1000}
	[ $# -gt 0 ] || ! on_pvm || min=100
	iters=$(sed -n 's/^csan-result: .* iterations=\([0-9][0-9]*\) .*/\1/p' "$out")
	[ -n "$iters" ] && [ "$iters" -ge "$min" ] ||
		fail "iterations=${iters:-missing}, want at least $min"
	echo "watched: setup_watchpoints=$setup iterations=$iters"
	expect_watch_mode
}

# --- shapes of zoo rows that more than one test runs ----------------------

# counter-nolock: two CPUs in counter_nolock_inc, a plain read or write
# each, at least one a write.
allow_counter_nolock() {
	t='data-race in counter_nolock_inc / counter_nolock_inc'
	inc=$(top_frame counter_nolock_inc 'scenarios/counter-nolock\.c')
	allow_report "$t" "$(access_line write 8)" "$inc" "$(access_line '(read|write)' 8)" "$inc"
	allow_report "$t" "$(access_line read 8)" "$inc" "$(access_line write 8)" "$inc"
	allow_unknown_origin 'data-race in counter_nolock_inc\+0x[0-9a-f]+/0x[0-9a-f]+' \
		'(read|write)' 8 "$inc"
}

# uninstr-origin in watch mode MODE: the uninstrumented writer can only
# be seen by a debug register (hw: both stacks); soft watchpoints see
# just the value change under the reader's watch (one stack), in hw mode
# too when the write lands before the debug register is armed.
allow_uninstr_origin() {
	reader=$(top_frame uninstr_origin_reader 'scenarios/uninstr-origin\.c')
	allow_unknown_origin 'data-race in uninstr_origin_reader\+0x[0-9a-f]+/0x[0-9a-f]+' \
		read 8 "$reader"
	[ "$1" = hw ] || return 0
	# The row's step: CPU 0 (task 1) reads, every other CPU writes; so a
	# side the debug register saw on the reader's CPU is a wrong CPU.
	allow_report 'data-race in uninstr_origin_reader / uninstr_origin_writer' \
		"$(access_line write 8 'task [0-9]+' '[1-9][0-9]*')" \
		"$(top_frame uninstr_origin_writer 'scenarios/uninstr/uninstr-origin\.c')" \
		"$(access_line read 8 'task 1' 0)" "$reader" \
		'Seen by: host debug register \(write\), guest soft watchpoint \(read\)'
}

# writer-assert-uninstr in watch mode MODE: the uninstrumented buggy
# writer runs into the locked writer's ASSERT_EXCLUSIVE_WRITER(), seen by
# a debug register (hw: both stacks); soft watchpoints can only see the
# value change under the assertion's watch (one stack), or nothing, and
# so can hw mode before its debug register is armed.
allow_writer_assert_uninstr() {
	locked=$(top_frame writer_assert_uninstr_locked_writer 'scenarios/writer-assert-uninstr\.c')
	allow_unknown_origin 'assert: race in writer_assert_uninstr_locked_writer\+0x[0-9a-f]+/0x[0-9a-f]+' \
		'assert no writes' 8 "$locked"
	[ "$1" = hw ] || return 0
	allow_report 'assert: race in writer_assert_uninstr_buggy_writer / writer_assert_uninstr_locked_writer' \
		"$(access_line write 8)" \
		"$(top_frame writer_assert_uninstr_buggy_writer 'scenarios/uninstr/writer-assert-uninstr\.c')" \
		"$(access_line 'assert no writes' 8)" "$locked" \
		'Seen by: host debug register \(write\), guest soft watchpoint \(assert no writes\)'
}
