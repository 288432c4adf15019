# tests/linux/lib.sh: helpers for the Linux guest tests (sourced after
# tests/lib.sh).  They boot tools/linux's KCSAN test kernel, built once per
# machine and cached (tools/linux/build-vmlinux.sh), on this machine's
# /dev/kvm where it is real KVM, else inside the emulated host, chosen by
# csan-vmm itself (--host=auto): PVM's /dev/kvm cannot run Linux
# (HOST-FACTS).

# Longest a Linux run may take in the emulated host (the KUnit suite
# takes minutes there), as csan-vmm's --timeout; the wall limit adds slack.
LINUX_TIMEOUT=${LINUX_TIMEOUT:-1200}
VMM_WALL_LIMIT=$((LINUX_TIMEOUT + 120))
# vCPUs of a Linux run (KCSAN's KUnit suite wants 4); a test may set it
# after sourcing this file.
linux_cpus=4

# require_linux: skip only when nothing here can run Linux (no KVM that
# runs it, and the emulated host says it cannot run: its 77); build or find
# the test kernel and set $vmlinux.  A machine that cannot build it (no
# Debian archive, no compiler tools) skips with the script's reason.
require_linux() {
	if [ -r /dev/kvm ] && [ -w /dev/kvm ] && [ ! -e /sys/module/kvm_pvm ]; then
		linux_env=direct
	else
		linux_env=emulated
		require_emulated_host
	fi
	vmlinux=$("$top_srcdir/tools/linux/build-vmlinux.sh" -q 2>"$work/build.err")
	case $? in
	0) ;;
	77) skip "cannot build the Linux test kernel: $(tail -n 1 "$work/build.err")" ;;
	*) cat "$work/build.err"; fail "tools/linux/build-vmlinux.sh failed" ;;
	esac
}

# workload_kernel: build or find the second test kernel
# (build-vmlinux.sh --config=workload: bzImage, ORC, modules, initramfs,
# virtio-mmio disk) and set $bzimage, $workload_vmlinux (its vmlinux, for
# symbols: it does not boot by PVH, workload.config says why),
# $workload_modules (lib/modules/RELEASE, the
# unstripped .ko files: kernel/kernel/csan-race-test-module/csan_race_test.ko,
# kernel/kernel/kcsan/kcsan_test.ko after kernel/kernel/torture.ko (in-tree
# modules go under kernel/ plus their source path), modules.dep when
# depmod was there) and $workload_build (the kept build tree:
# arch/x86/boot/bzImage beside vmlinux, as in a user's tree).  Leaves
# $vmlinux alone.  Skips with the script's reason where it cannot build.
workload_kernel() {
	workload_vmlinux=$("$top_srcdir/tools/linux/build-vmlinux.sh" --config=workload -q \
		2>"$work/build.err")
	case $? in
	0) ;;
	77) skip "cannot build the workload test kernel: $(tail -n 1 "$work/build.err")" ;;
	*) cat "$work/build.err"; fail "tools/linux/build-vmlinux.sh --config=workload failed" ;;
	esac
	wk_out=${workload_vmlinux%/vmlinux}
	bzimage=$wk_out/bzImage
	workload_build=$(cat "$wk_out/build-dir")
	# The build tree is one per config: a build for another key (another
	# checkout's race test or fragment) relinks its vmlinux in place, so
	# wait until no build holds the cache's lock.
	flock -s -w 3600 "${wk_out%/*}/lock" true ||
		fail "a Linux build held ${wk_out%/*}/lock for an hour"
	workload_modules=$(echo "$wk_out"/modules/lib/modules/*)
	for wk_f in "$bzimage" "$workload_build/vmlinux" "$workload_build/arch/x86/boot/bzImage" \
		"$workload_modules/kernel/kernel/csan-race-test-module/csan_race_test.ko"; do
		[ -r "$wk_f" ] || fail "the workload kernel's $wk_f is missing (remove $wk_out to rebuild it)"
	done
}

# require_linux_workload: as require_linux (skip only when nothing here
# can run Linux), then workload_kernel.
require_linux_workload() {
	if [ -r /dev/kvm ] && [ -w /dev/kvm ] && [ ! -e /sys/module/kvm_pvm ]; then
		linux_env=direct
	else
		linux_env=emulated
		require_emulated_host
	fi
	workload_kernel
}

# The line csan-vmm puts on stdout in the place of a KCSAN block it
# printed itself on stderr (LINUX_REPORT_NOTE, src/vmm/guest/linux/linux_guest.h).
report_note_re='^\[csan-vmm: KCSAN report #[0-9]+ printed on stderr: .+\]$'

# expect_reports_once [hw]: each report is printed once.  With a vmlinux
# csan-vmm prints every KCSAN report Linux printed, on stderr, and stdout
# shows one note in the place of each block: no "BUG: KCSAN:" on stdout,
# the notes numbered 1, 2, ... in console order, as many as the reports
# on stderr (with "hw", at least as many: the host adds the races it saw
# alone, which have no block).  Sets $reports (the notes).
expect_reports_once() {
	! grep -q 'BUG: KCSAN: ' "$out" ||
		fail "a KCSAN block is on stdout although csan-vmm printed its report: $(grep -m 1 'BUG: KCSAN: ' "$out" | tr -d '\r')"
	reports=$(grep -cE "$report_note_re" "$out")
	grep -E "$report_note_re" "$out" | sed 's/^\[csan-vmm: KCSAN report #\([0-9]*\) .*/\1/' |
		awk '$1 != NR { exit 1 }' ||
		fail "the notes on stdout are not numbered 1 to $reports in order: $(grep -E "$report_note_re" "$out" | cut -c 1-40 | tr '\n' ' ')"
	er_on_err=$(grep -c '^BUG: KCSAN: ' "$err")
	if [ "${1:-}" = hw ]; then
		[ "$er_on_err" -ge "$reports" ] ||
			fail "$reports KCSAN notes on stdout, only $er_on_err reports on stderr"
	else
		[ "$er_on_err" = "$reports" ] ||
			fail "$reports KCSAN notes on stdout, $er_on_err reports on stderr"
	fi
}

# expect_blocks_stay: with no vmlinux csan-vmm prints no report of its
# own, so Linux's KCSAN blocks stay on stdout as Linux printed them, both
# rules and the title each, with no note, and the summary counts them
# (guest_findings.races_unlogged).  Sets $blocks.
expect_blocks_stay() {
	blocks=$(grep -c 'BUG: KCSAN: ' "$out")
	[ "$blocks" -gt 0 ] || fail "no KCSAN block on stdout"
	! grep -qE "$report_note_re" "$out" ||
		fail "a note on stdout, but no vmlinux to print the report by: $(grep -m 1 -E "$report_note_re" "$out")"
	! grep -q '^BUG: KCSAN: ' "$err" || fail "a KCSAN report on stderr with no vmlinux"
	ebs_rules=$(tr -d '\r' <"$out" | grep -cE '(^|\] )={66}$')
	[ "$ebs_rules" -ge $((2 * blocks)) ] ||
		fail "$blocks KCSAN blocks on stdout but $ebs_rules rules around them"
	expect_err "^csan-vmm: $blocks KCSAN reports? on the console, left as Linux printed them"
}

# expect_status_by_races: the run ended as csan-vmm documents a finished
# guest: status 0 when its race summary counts no report, 1 when it
# counts some.  Linux's own KCSAN may find a race on its way down (6.1's
# native_stop_other_cpus() reads cpu_online_mask while the other CPUs
# clear their bits, seen as a race at unknown origin), and every KCSAN
# block on the console must then be a report csan-vmm counted and
# printed once (expect_reports_once).
expect_status_by_races() {
	expect_reports_once
	if [ "$reports" = 0 ]; then
		expect_rc 0
		expect_err '^csan-vmm: guest finished, no races reported$'
	else
		expect_rc 1
		expect_err "^csan-vmm: guest finished, $reports race reports?\$"
	fi
}

# ktap_cases VERDICT FILE: the KUnit cases FILE's KTAP output marks
# VERDICT ("ok" or "not ok"), at the suite's level: "    ok N name" (a
# serial console ends its lines in CR LF).
ktap_cases() {
	tr -d '\r' <"$2" | sed -n "s/^ \{4\}$1 [0-9][0-9]* \(test_[a-z0-9_]*\)\$/\1/p"
}

# run_linux_once ARGS...: csan-vmm --cpus=$linux_cpus ARGS VMLINUX, once.
run_linux_once() {
	timeout "$VMM_WALL_LIMIT" "$VMM" --cpus="$linux_cpus" --memory=512M \
		--timeout="$LINUX_TIMEOUT" "$@" "$vmlinux" </dev/null >"$out" 2>"$err"
	rc=$?
	[ "$rc" != 124 ] || fail "csan-vmm still running after ${VMM_WALL_LIMIT}s"
}

# run_linux ARGS...: csan-vmm --cpus=$linux_cpus ARGS VMLINUX as a user
# runs it (--host=auto: this machine's KVM where it runs Linux, else the
# emulated host, which gives the vCPUs this machine's CPUs); sets $rc and
# fills $out/$err.
run_linux() {
	if [ "$linux_env" = emulated ]; then
		retry_nested_state_lost run_linux_once "$@"
	else
		run_linux_once "$@"
	fi
	if [ "$linux_env" = emulated ]; then
		expect_err "^csan-vmm: (/dev/kvm does not exist|a Linux guest does not run on this KVM).*: running in the emulated host"
	fi
}

# expect_linux_backing: hw mode followed KCSAN's watchpoints, and what its
# line says adds up against the debug-register engine's own counters
# (issue 25: how many watchpoints Linux hw mode backs is a line users
# trust): every watchpoint set up was backed or left for one stated
# reason, as many were backed as the engine armed, and no more host
# reports than the engine had hits.  Sums over the runs in $err.
expect_linux_backing() {
	expect_err '^csan-vmm: KCSAN watchpoints followed: [1-9][0-9]* set up, [1-9][0-9]* backed by debug registers'
	lb_line='^csan-vmm: KCSAN watchpoints followed: \([0-9]*\) set up, \([0-9]*\) backed by debug registers, \([0-9]*\) without a free one, \([0-9]*\) over the time budget ([0-9]*% of wall time), [0-9]* backed from its reserve for shared data, \([0-9]*\) on the watcher.s stack, \([0-9]*\) nested too deep, \([0-9]*\) ended by KCSAN before its delay; \([0-9]*\) host reports, .*'
	lb_setup=$(sum_of "s/$lb_line/\\1/p" "$err")
	lb_backed=$(sum_of "s/$lb_line/\\2/p" "$err")
	lb_left=$(sed -n "s/$lb_line/\\3 \\4 \\5 \\6 \\7/p" "$err" | awk '{ n += $1 + $2 + $3 + $4 + $5 } END { print n + 0 }')
	lb_reports=$(sum_of "s/$lb_line/\\8/p" "$err")
	# Watches backed late, when their value changed unbacked, are armed by the engine too.
	lb_late=$(sum_of "s/.*; \\([0-9]*\\) unbacked whose value changed, backed late (\\([0-9]*\\) caught.*/\\1/p" "$err")
	# Backed ones whose value changed with no hit, delayed again for the writer's next write.
	expect_err '; [0-9]+ backed whose value changed unseen by the registers, delayed again \([0-9]+ caught the other side then\)$'
	lb_missed=$(sum_of "s/.*; \\([0-9]*\\) backed whose value changed unseen by the registers, delayed again (\\([0-9]*\\) caught.*/\\1/p" "$err")
	lb_armed=$(engine_count armed)
	lb_hits=$(engine_count hits)
	echo "KCSAN watchpoints: $lb_setup set up, $lb_backed backed, $lb_left left, $lb_late backed late, $lb_missed delayed again; engine: $lb_armed armed, $lb_hits hits; $lb_reports host reports"
	[ "$lb_setup" = $((lb_backed + lb_left)) ] ||
		fail "$lb_setup KCSAN watchpoints set up, but $lb_backed backed and $lb_left left or ended for a stated reason"
	[ $((lb_backed + lb_late)) = "$lb_armed" ] ||
		fail "$lb_backed KCSAN watchpoints said backed by debug registers and $lb_late late, the engine armed $lb_armed"
	[ "$lb_missed" -le "$lb_backed" ] ||
		fail "$lb_missed backed KCSAN watchpoints said delayed again, of $lb_backed backed"
	[ "$lb_reports" -le "$lb_hits" ] ||
		fail "$lb_reports host reports from $lb_hits debug-register hits"
}

# expect_sample_plain_race FRAME_TAIL WHERE: the sampling reports on
# stderr of a run of the race test's racy-plain case (race_test_plain_read
# on cpu 0, race_test_plain_write on cpu 1, one u64), each on its own: at
# least one has both sides, each in its function with a frame ending in
# the regex FRAME_TAIL (the source file and line, after a module's
# [name] where there is one), one seen by the host sampling breakpoint
# and the other by a host debug register; every other is that race at
# unknown origin, naming one of the two.  WHERE words the failure.
# FRAME_TAIL reaches awk through its environment (-v would process its
# backslashes, differently in mawk and gawk).
expect_sample_plain_race() {
	CSAN_FRAME_TAIL=$1 awk '
	function frame(f) { return "^ " f "\\+0x[0-9a-f]+/0x[0-9a-f]+ " ENVIRON["CSAN_FRAME_TAIL"] }
	function check(   i, n, two, one) {
		if (!sampling)
			return
		nrep++
		n = 0
		for (i = 1; i <= nl; i++)
			if (l[i] ~ / to 0x[0-9a-f]+ of 8 bytes by task [0-9]+ on cpu [0-9]+:$/)
				acc[++n] = i
		two = n == 2 &&
			l[1] ~ /^BUG: KCSAN: data-race in race_test_plain_read \/ race_test_plain_write$/ &&
			((l[acc[1]] ~ /^read to .* on cpu 0:$/ && l[acc[1] + 1] ~ frame("race_test_plain_read") &&
			  l[acc[2]] ~ /^write to .* on cpu 1:$/ && l[acc[2] + 1] ~ frame("race_test_plain_write")) ||
			 (l[acc[1]] ~ /^write to .* on cpu 1:$/ && l[acc[1] + 1] ~ frame("race_test_plain_write") &&
			  l[acc[2]] ~ /^read to .* on cpu 0:$/ && l[acc[2] + 1] ~ frame("race_test_plain_read"))) &&
			seen ~ /^Seen by: host debug register \((read|write)\), host sampling breakpoint \((read|write)\)$/
		one = n == 1 &&
			l[1] ~ /^BUG: KCSAN: data-race in race_test_plain_(read|write)\+0x[0-9a-f]+\/0x[0-9a-f]+$/ &&
			l[acc[1]] ~ /^race at unknown origin, with (read|write) to / &&
			seen ~ /^Seen by: host sampling breakpoint \((read|write)\)$/
		if (two)
			ntwo++
		else if (!one) {
			bad++
			print "a sampling report of another shape:"
			for (i = 1; i <= nl; i++)
				print "    | " l[i]
		}
	}
	BEGIN { rule = "=================================================================="; in_rep = 0 }
	$0 == rule {
		if (in_rep) { check(); in_rep = 0 } else { in_rep = 1; nl = 0; sampling = 0; seen = "" }
		next
	}
	in_rep {
		l[++nl] = $0
		if ($0 ~ /^Seen by:/) { seen = $0; sampling = $0 ~ /host sampling breakpoint/ }
	}
	END {
		printf "sampling reports: %d, with both sides: %d\n", nrep, ntwo
		exit (bad || !ntwo) ? 1 : 0
	}' "$err" ||
		fail "no two-sided sampling report of race_test_plain_read / race_test_plain_write$2 on cpus 0 and 1, or one of another shape (above)"
}

# show_sample_report: for the log, the first report with both a host
# debug register's side and a host sampling breakpoint's.
show_sample_report() {
	awk 'BEGIN { rule = "==================================================================" }
		$0 == rule { if (in_rep) { in_rep = 0; if (two && !shown) { shown = 1; print rule; printf "%s", text; print rule } }
			     else { in_rep = 1; text = ""; two = 0 } ; next }
		in_rep { text = text $0 "\n"; if ($0 ~ /^Seen by: host debug register .*host sampling breakpoint/) two = 1 }' "$err"
}
