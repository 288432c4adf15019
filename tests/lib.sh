# tests/lib.sh: shared helpers for csan-vmm's shell tests (sourced).
#
# A VM test sets CSAN_TEST_ENV (its generated wrapper does) to "direct"
# (this machine's /dev/kvm), "emuhost" (inside the emulated host with
# real kvm-amd, src/harness/emuhost) or "hw" (the emulated host with
# csan-vmm in hardware-watchpoint mode), then calls run_vmm and the
# expect_* checks.  Exit 77 means skipped, and always says why.

: "${top_srcdir:?run through make check}" "${top_builddir:?run through make check}"
VMM="$top_builddir/csan-vmm"
GUEST="$top_builddir/src/guest/csan-guest"
EMUHOST="$top_builddir/src/harness/emuhost"
# Wall-clock ceiling for one csan-vmm run outside its own --timeout, so a
# broken VMM cannot hang the suite.
VMM_WALL_LIMIT=${VMM_WALL_LIMIT:-300}

work=$(mktemp -d "${TMPDIR:-/tmp}/csan-test.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
out="$work/stdout"
err="$work/stderr"
carry_files=""

# The machine, shared or alone.  `make -j2 check` runs two tests at once,
# and most of them are an emulated host that wants both cores.  That only
# slows them, but Linux's KUnit cases wait a fixed wall-clock time for
# KCSAN's report (CONFIG_KCSAN_REPORT_ONCE_IN_MS + 500 ms), and beside
# another emulated host they run out of it: run alone in hw mode,
# test_assert_exclusive_access_writer failed 2 of 20 times on an idle
# machine and 9 of 12 with two such runs at once (2026-12-05).  So every
# shell test holds the machine shared while it runs (fd 5, inherited by
# what it starts, released when all of that ends), and a test that calls
# machine_alone runs with no other test beside it from then on.  The gate
# (fd 4) keeps tests that start while it waits from going ahead of it.
machine_lock="$top_builddir/tests/machine.lock"
exec 4>>"$machine_lock.gate" 5>>"$machine_lock" ||
	{ echo "ERROR: cannot create $machine_lock (is the build tree writable?)"; exit 99; }
flock 4 && flock -s 5 && flock -u 4
# machine_alone: wait until no other test runs, and keep it so.  The shared
# hold is dropped before the gate is taken: two tests calling this at once
# would otherwise each wait for the other's shared hold.
machine_alone() {
	flock -u 5 && flock 4 && flock 5 && flock -u 4
}

# The watch mode this run tests: run_vmm passes --watch=hw in the "hw"
# environment, and tests check "watch mode: $watch_mode" and pick their
# expectations by it where the two modes differ (../shared/ZOO.md).
watch_mode=soft
if [ "${CSAN_TEST_ENV:-direct}" = hw ]; then
	CSAN_TEST_ENV=emuhost
	watch_mode=hw
fi

skip() {
	echo "SKIP: $*"
	exit 77
}

show_output() {
	echo "--- exit status: ${rc-unset}"
	echo "--- stdout:"; cat "$out" 2>/dev/null
	echo "--- stderr:"; cat "$err" 2>/dev/null
}

fail() {
	echo "FAIL: $*"
	show_output
	exit 1
}

# require_vm_env: skip (77) with the reason when this test's environment
# cannot run guests here.
require_vm_env() {
	case "${CSAN_TEST_ENV:-direct}" in
	direct)
		[ -e /dev/kvm ] || skip "/dev/kvm does not exist (enable KVM on this host)"
		[ -r /dev/kvm ] && [ -w /dev/kvm ] ||
			skip "/dev/kvm is not readable and writable by $(id -un)"
		;;
	emuhost)
		reason=$("$EMUHOST" --check 2>&1)
		case $? in
		0) ;;
		77) skip "emulated host unavailable: $reason" ;;
		*) fail "emulated host check failed: $reason" ;;
		esac
		;;
	*)
		echo "ERROR: unknown CSAN_TEST_ENV '$CSAN_TEST_ENV'"
		exit 99
		;;
	esac
}

# require_emulated_host: for tests of csan-vmm --host=emulated|auto run
# on this machine: skip (77) when the harness says it cannot run here (it
# exits 77 only for that, naming what is missing), fail on anything else.
require_emulated_host() {
	reason=$("$EMUHOST" --check 2>&1 >/dev/null)
	case $? in
	0) ;;
	77) skip "emulated host unavailable: $reason" ;;
	*) fail "emuhost --check failed: $reason" ;;
	esac
}

# qemu_stand_in: $work/qemu, a stand-in QEMU for emuhost's own tests
# (QEMU_SYSTEM=$work/qemu), its body on stdin.  It answers --version as
# the real QEMU does, so emuhost takes it for the QEMU it verified (which
# must pass emuhost --check), and finds among its arguments the file
# chardev "console" ($console) and the pipe chardev "ctl" ($ctl: what the
# body writes to "$ctl.out" reaches emuhost as the control port's words).
# The body ends with "exit 0" after it.
qemu_stand_in() {
	"$EMUHOST" --check >/dev/null 2>&1 || fail "emuhost --check failed with the real QEMU"
	qsi_version=$("${QEMU_SYSTEM:-qemu-system-x86_64}" --version | head -n 1)
	{
		printf '#!/bin/sh\ncase "$1" in --version) echo "%s"; exit 0 ;; esac\n' "$qsi_version"
		cat <<'EOQ'
console= ctl=
while [ $# -gt 0 ]; do
	case "$1,$2" in
	-chardev,file,id=console,path=*) console=${2#file,id=console,path=} ;;
	-chardev,pipe,id=ctl,path=*) ctl=${2#pipe,id=ctl,path=} ;;
	esac
	shift
done
EOQ
		cat
		echo "exit 0"
	} >"$work/qemu"
	chmod +x "$work/qemu"
}

# run_host ARGS...: csan-vmm ARGS on this machine, as a user runs it (no
# --host added), under the wall-clock ceiling; sets $rc, fills $out/$err.
# A run the emulated host's known fault ended is made again.
run_host() {
	retry_nested_state_lost run_host_once "$@"
}

run_host_once() {
	timeout "$VMM_WALL_LIMIT" "$VMM" "$@" </dev/null >"$out" 2>"$err"
	rc=$?
	[ "$rc" != 124 ] || fail "csan-vmm still running after ${VMM_WALL_LIMIT}s"
}

# carry FILE: make FILE available to the guest run; sets $carried to the
# path to pass to csan-vmm in this environment.
carry() {
	case "${CSAN_TEST_ENV:-direct}" in
	emuhost)
		carry_files="$carry_files --file $1"
		carried="/csan/$(basename "$1")"
		;;
	*)
		carried="$1"
		;;
	esac
}

# run_vmm ARGS...: run csan-vmm in this test's environment and watch
# mode; sets $rc and fills $out/$err.  The harness's own failure (125)
# fails the test.
run_vmm() {
	run_vmm_as_given --watch=$watch_mode "$@"
}

# nested_state_lost: did the run just made end in the emulated host's own
# failure, by the harness's own status and words (125, or csan-vmm's 2
# for --host=auto, which passes the harness's words on)?  Those are: the
# emulated host stopped, its kernel locked up, it fell silent, a serial
# port stopped sending, or QEMU's TCG lost the guest's state: its kvm saw
# the nested guest exit at an address of its own kvm modules, or a vCPU
# triple-faulted fetching the very instruction kvm had entered it at, or
# taking an interrupt right after a HLT it had been woken from before
# (docs/harness.md, "Known faults").  Nothing csan-vmm or the guest says
# counts: a triple fault, a hang or an empty console with none of these
# words is the product's, and fails the test.  Says so when it is.
nested_state_lost() {
	{ [ "$rc" = 2 ] || [ "$rc" = 125 ]; } &&
		grep -Eq "^emuhost: (the emulated host stopped while running|the emulated host's kernel locked up while running|the emulated host fell silent while running|the emulated host's serial port for .* stopped sending|the emulated host lost a nested guest's state while running)" "$err" ||
		return 1
	echo "emulated host: its own failure, in its own words (docs/harness.md); this run's stderr, then another run:"
	cat "$err"
}

# retry_nested_state_lost RUN ARGS...: RUN ARGS (a function that sets
# $rc, $out and $err), and once more when nested_state_lost says the
# emulated host itself failed; never a third time.  The "emulated-host
# fault, run again" line is counted in the suite's closing line
# (tests/summary.sh).
retry_nested_state_lost() {
	"$@"
	# The one second boot the harness allows is spent already.
	emuhost_booted_again && return 0
	nested_state_lost || return 0
	echo "emulated-host fault, run again: run 2 of at most 2"
	"$@"
	emuhost_booted_again || :
}

# emuhost_booted_again: did the emulated host of the run just made fall
# silent while booting, so that emuhost booted it again by itself (before
# the command started: docs/harness.md)?  That second boot is a harness
# re-run like retry_nested_state_lost's, and is counted the same way.
emuhost_booted_again() {
	grep -q '^emuhost: the emulated host fell silent while booting .*booting it again$' "$err" 2>/dev/null ||
		return 1
	echo "emulated-host fault, run again: the emulated host fell silent while booting, and emuhost booted it again before the command started"
}

# emuhost_vmm ARGS...: csan-vmm ARGS in the emulated host, once.
emuhost_vmm() {
	# shellcheck disable=SC2086 # carry_files is a word list
	"$EMUHOST" --timeout "$VMM_WALL_LIMIT" --file "$VMM" \
		--file "$GUEST:/csan/src/guest/csan-guest" $carry_files \
		-- csan-vmm "$@" >"$out" 2>"$err"
	rc=$?
}

# run_vmm_as_given ARGS...: the same with no --watch added (--compare
# picks the modes itself and refuses --watch).  --host=kvm: this test's
# environment is the host (tests of --host=auto and emulated call csan-vmm
# themselves).
run_vmm_as_given() {
	set -- --host=kvm "$@"
	case "${CSAN_TEST_ENV:-direct}" in
	emuhost)
		retry_nested_state_lost emuhost_vmm "$@"
		[ "$rc" != 125 ] || fail "the emulated host failed to run csan-vmm"
		;;
	*)
		# Not the terminal make check runs on: its keys are not the test's.
		timeout "$VMM_WALL_LIMIT" "$VMM" "$@" </dev/null >"$out" 2>"$err"
		rc=$?
		[ "$rc" != 124 ] || fail "csan-vmm still running after ${VMM_WALL_LIMIT}s"
		;;
	esac
}

# run_helper NAME ARGS...: run the shell script tests/helpers/NAME.sh in
# this test's environment as "sh NAME.sh VMM DIR ARGS...", where VMM is
# csan-vmm there and DIR a fresh scratch directory there; sets $rc and fills
# $out/$err.  Helpers use busybox sh and tools only, so they run inside
# the emulated host as well.
run_helper() {
	helper="$top_srcdir/tests/helpers/$1.sh"
	shift
	case "${CSAN_TEST_ENV:-direct}" in
	emuhost)
		# shellcheck disable=SC2086 # carry_files is a word list
		"$EMUHOST" --timeout "$VMM_WALL_LIMIT" --file "$VMM" \
			--file "$GUEST:/csan/src/guest/csan-guest" \
			--file "$top_srcdir/tests/helpers" $carry_files \
			-- sh "/csan/helpers/$(basename "$helper")" /csan/csan-vmm /tmp "$@" \
			>"$out" 2>"$err"
		rc=$?
		emuhost_booted_again || :
		[ "$rc" != 125 ] || fail "the emulated host failed to run $helper"
		;;
	*)
		hdir=$(mktemp -d "$work/helper.XXXXXX") || exit 99
		timeout "$VMM_WALL_LIMIT" sh "$helper" "$VMM" "$hdir" "$@" \
			</dev/null >"$out" 2>"$err"
		rc=$?
		[ "$rc" != 124 ] || fail "$helper still running after ${VMM_WALL_LIMIT}s"
		;;
	esac
}

expect_rc() {
	[ "$rc" = "$1" ] || fail "expected exit status $1, got $rc"
}

# expect_out / expect_err ERE: stdout / stderr has a line matching ERE.
expect_out() {
	grep -Eq -- "$1" "$out" || fail "stdout has no line matching /$1/"
}
expect_err() {
	grep -Eq -- "$1" "$err" || fail "stderr has no line matching /$1/"
}
expect_no_out() {
	! grep -Eq -- "$1" "$out" || fail "stdout unexpectedly matches /$1/"
}

# in_order FILE ERE...: FILE has lines matching each ERE, in this order
# (other lines may come between).  The patterns reach awk through its
# environment: awk processes backslash escapes in -v values, and mawk and
# gawk do not do it alike.
in_order() {
	f=$1
	shift
	CSAN_PATTERNS=$(printf '%s\n' "$@") awk '
		BEGIN { n = split(ENVIRON["CSAN_PATTERNS"], p, "\n"); i = 1 }
		i <= n && $0 ~ p[i] { i++ }
		END { exit i <= n ? 1 : 0 }' "$f"
}

# expect_err_in_order ERE...: stderr has lines matching each ERE, in this
# order (other lines may come between).
expect_err_in_order() {
	in_order "$err" "$@" || fail "stderr lacks, in order: $*"
}

# on_pvm: whether this test's guests run on PVM (kvm_pvm, directly on the
# team's machines), where guest code at CPL 0 is emulated and guest data
# watchpoints never fire.  The emulated host always has kvm-amd.
on_pvm() {
	[ "${CSAN_TEST_ENV:-direct}" = direct ] && [ -d /sys/module/kvm_pvm ]
}

# zoo_knobs: extra csan-vmm options for zoo rows.  PVM emulates guest
# kernel code (~8,600 instrumented accesses/s against millions on real
# KVM), so at the default skip_watch a row would set up only a handful of
# watchpoints per second there: racy rows would need tens of seconds and
# race-free rows would prove little.  Watching more often keeps the number
# of watchpoints per second of guest time comparable.
zoo_knobs() {
	if on_pvm; then
		echo "--append=csan.skip_watch=100"
	fi
}

# expect_watch_mode: the run was in $watch_mode, and in hw mode the debug
# registers were really used: the runtime's hw_armed counter and the
# engine's line both count armed watches.
expect_watch_mode() {
	expect_err "^csan-vmm: booting .* watch mode $watch_mode, "
	if [ "$watch_mode" = hw ]; then
		expect_err '^csan-vmm: counters: .* hw_armed=[1-9][0-9]* '
		expect_err '^csan-vmm: hardware watches: [1-9][0-9]* armed, '
		expect_hw_hits_bounded
	else
		expect_err '^csan-vmm: counters: .* hw_armed=0 '
	fi
}

# expect_hw_hits_bounded: a vCPU traps on a watch once, then no more while
# it lives (hwwatch/dr_share.c, hw_mute_after_hit): the engine's hits are at most
# one per armed watch and vCPU.  Without that a racing loop traps on each
# of its accesses while a watch lives.
expect_hw_hits_bounded() {
	set -- $(sed -n 's/^csan-vmm: hardware watches: \([0-9]*\) armed, .* \([0-9]*\) hits (.*(\([0-9]*\) vCPUs), .*/\1 \2 \3/p' "$err")
	[ $# = 3 ] || fail "no count of hardware watches, hits and vCPUs on stderr"
	[ "$2" -le $(($1 * $3)) ] ||
		fail "$2 debug-register hits for $1 watches on $3 vCPUs: a vCPU trapped more than once on a watch"
}

# expect_irq_same_cpu_report HANDLER TASKFN HANDLER_FILE TASK_FILE [EXTRA]:
# data races between interrupt handler HANDLER ("by interrupt", its stack
# through interrupt_dispatch) and task function TASKFN, both on the same
# CPU, each symbolized to its file (EREs) and line, in $watch_mode, and
# no other report; each report has a line matching EXTRA, if given.
expect_irq_same_cpu_report() {
	allow_report "data-race in $1 / $2" \
		"$(access_line '(read|write)' 8 interrupt)" "$(top_frame "$1" "$3")" \
		"$(access_line '(read|write)' 8)" "$(top_frame "$2" "$4")" ${5:+"$5"}
	expect_reports 1
	expect_err_in_order "^BUG: KCSAN: data-race in $1 / $2\$" \
		'^write to 0x[0-9a-f]+ of 8 bytes by interrupt on cpu [0-9]+:$' \
		"^ $1\\+0x[0-9a-f]+/0x[0-9a-f]+ .*$3:[0-9]+\$" \
		'^ interrupt_dispatch\+' \
		'^read to 0x[0-9a-f]+ of 8 bytes by task [0-9]+ on cpu [0-9]+:$' \
		"^ $2\\+0x[0-9a-f]+/0x[0-9a-f]+ .*$4:[0-9]+\$" \
		"watch mode: $watch_mode"
	# Same CPU on both sides of each report: the race is with that CPU's
	# own interrupt (two reports, from two CPUs, may both be printed).
	bad=$(CSAN_TITLE="^BUG: KCSAN: data-race in $1 / $2\$" awk '
		$0 ~ ENVIRON["CSAN_TITLE"] { inside = 1; n = 0; next }
		inside && / bytes by .* on cpu [0-9]+:$/ { sub(/:$/, "", $NF); cpu[++n] = $NF }
		inside && /^Reported by/ { if (n != 2 || cpu[1] != cpu[2]) bad++; inside = 0 }
		END { print bad + 0 }' "$err")
	[ "$bad" = 0 ] || fail "a report whose two sides are on different CPUs"
	# The interrupt's stack ends at the interrupt entry, marked, as
	# KCSAN's do: not in the interrupted task's frames below it.
	bad=$(awk '
		/ bytes by interrupt on cpu [0-9]+:$/ { irq = 1; last = ""; next }
		irq && /^ / { last = $0; next }
		irq { if (last !~ /^ interrupt_common\+.* \[interrupt entry\]$/) bad++; irq = 0 }
		END { print bad + 0 }' "$err")
	[ "$bad" = 0 ] || fail "an interrupt's stack does not end at its entry"
	expect_no_runtime_frames
}

# expect_no_runtime_frames: no stack in the output shows the sanitizer's
# own frames (entry points, slow paths, port and hypercall helpers).
expect_no_runtime_frames() {
	! grep -Eq '^ (__tsan_|csan_(setup|found|check|report|port|stack)_|kcsan_|hypercall |hw_arm |watch |check_access)' "$err" ||
		fail "a runtime frame in a report's stack"
}

. "$top_srcdir/tests/reports.sh"
