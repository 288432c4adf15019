# sample-overhead-inside.sh ROUNDS SECONDS AB_SECONDS WINDOW CONFIG...: run inside the emulated
# host by sample-overhead.sh (busybox sh).  Debian's stock kernel
# (/csan/vmlinuz, its debug vmlinux /csan/vmlinux) on 2 vCPUs runs
# kernel-workload.sh for SECONDS under csan-vmm, once per CONFIG in turn,
# ROUNDS times, so that the emulated host's slow moments fall on all of
# them alike.  A CONFIG is "none" (no detector: csan-vmm's default watch
# mode on a kernel without KCSAN does nothing) or "pMS" followed by any
# of "-bN", "-dMS", "-cold", "-hot", "-ab", "-aa": --watch=sample with
# --sample-period=MS (and "-bN": --sample-breakpoints=N; "-dMS":
# --sample-delay=MS; "-cold": sites only in functions the workload never
# runs; "-hot": sites only in functions it never runs that share a page
# with code it runs all the time; "-ab": the A/B run below;
# "-aa": the same run with sampling paused in every window, which the
# figures still split as if the even ones were sampled: what the method
# makes of two halves that differ in nothing).
# An A/B run (AB_SECONDS long) cuts the workload into windows of WINDOW
# seconds (kernel-workload.sh) and pauses sampling in every odd one (the
# control socket's sample_paused, set as the guest opens the window), so
# sampled and unsampled stretches alternate within one boot, where the
# emulated host's moods fall on both alike.  It prints, besides its run's
# line, one line per window: "sample-overhead: window CONFIG ROUND K
# PAUSED ROUNDS T0 T1" (PAUSED 1, 0, or "unknown" when the socket did
# not answer; T0 and T1 the guest's uptime at the counted stretch's ends).
# Prints one line per run: "sample-overhead: CONFIG ROUND WORK HITS
# WATCHES REPORTS LOADS UPTIME", WORK the two loops' rounds summed ("none"
# when the workload did not finish), then csan-vmm's counts (its sampling
# line, and its code-breakpoint sets loaded) and the guest's uptime at
# the workload's end, the time those counts cover.
rounds=$1 secs=$2 ab_secs=$3 window=$4
# Functions the workload never runs (kexec and crash dumps): drawing only
# these, the vCPUs load new breakpoints as often as at any period but
# none is hit and none sits in code that runs.
cold='machine_kexec*,crash_kexec,crash_save_*,crash_prepare_elf64_headers,kexec_add_buffer,kexec_load_purgatory,kexec_locate_mem_hole'
# Functions the workload never runs either (mounts, chown, renames with
# RENAME_EXCHANGE, case-insensitive lookups, 32-bit system calls,
# copy_file_range) but which share a 4-KiB page of Debian's 6.1.0-57
# cloud kernel with functions it runs in every round (__d_lookup_rcu and
# d_lookup; do_sys_openat2 and __x64_sys_openat; fput and __fput):
# breakpoints there are hardly ever hit (0-7 times in a 200-s run), yet
# sit on pages of hot code.  Only
# that kernel's layout was checked; on another the pages may differ, and
# nothing here notices.  Hardware checks a breakpoint for nothing; the
# emulated host's TCG runs every instruction of a page that holds one as
# a block of its own (docs/BENCHMARKS.md), so a "-hot" config with a
# period too long to move them (p60000-hot) costs that alone.
hot='d_set_mounted,shrink_dcache_for_umount,d_exchange,d_add_ci,ksys_fchown,__ia32_sys_fchown,__ia32_compat_sys_open,__ia32_compat_sys_openat,__do_sys_copy_file_range'
shift 4
configs=$*
# toggle_windows PID: while csan-vmm PID runs, pause sampling as the guest
# opens each odd window and resume it at each even one (with $aa set,
# pause it at every window); one line per window, "K PAUSED" (as an A/B
# run would have it), for those the socket answered.  The console is looked
# at twice a second: the guest counts a window's rounds from one second
# after it opens.
toggle_windows() {
	seen=0
	while kill -0 "$1" 2>/dev/null; do
		k=$(tr -d '\r' </tmp/o.log | sed -n 's/.*kernel-workload: window \([0-9]*\)$/\1/p' | tail -n 1)
		if [ -n "$k" ] && [ "$k" != "$seen" ]; then
			seen=$k
			csan-vmm --control=/tmp/c.sock --send="set sample_paused ${aa:-$((k % 2))}" \
				>/dev/null 2>>/tmp/e.send && echo "$k $((k % 2))"
		fi
		sleep 0.5
	done
	wait "$1"
}
i=0
while [ "$i" -lt "$rounds" ]; do
	i=$((i + 1))
	for c in $configs; do
		args= ab= aa= run_secs=$secs
		case $c in
		none) ;;
		p*)
			args="--watch=sample --vmlinux=/csan/vmlinux"
			for part in $(echo "${c#p}" | tr - ' '); do
				case $part in
				[0-9]*) args="$args --sample-period=$part" ;;
				b[0-9]*) args="$args --sample-breakpoints=${part#b}" ;;
				d[0-9]*) args="$args --sample-delay=${part#d}" ;;
				cold) args="$args --sample-only=$cold" ;;
				hot) args="$args --sample-only=$hot" ;;
				ab) ab=1 run_secs=$ab_secs ;;
				aa) ab=1 aa=1 run_secs=$ab_secs ;;
				*) echo "sample-overhead: no such config: $c"; exit 1 ;;
				esac
			done
			;;
		*) echo "sample-overhead: no such config: $c"; exit 1 ;;
		esac
		if [ -n "$ab" ]; then
			# Emptied before the follower starts: the last run's lines are not this one's.
			rm -f /tmp/c.sock
			: >/tmp/o.log
			: >/tmp/e.send
			# Its own limit is shorter than a plain run's: a run that sticks (the
			# emulated host's lost-state fault) would keep the bench for 20 minutes.
			# shellcheck disable=SC2086 # args is a word list
			csan-vmm --host=kvm --cpus=2 --memory=512M --timeout=$((run_secs * 4 + 180)) \
				$args --control=/tmp/c.sock \
				--add=/csan/kernel-workload.sh:/kw.sh --run="sh /kw.sh $run_secs $window" \
				/csan/vmlinuz </dev/null >/tmp/o.log 2>/tmp/e.log &
			pid=$!
			toggle_windows "$pid" >/tmp/toggles
			tr -d '\r' </tmp/o.log |
				sed -n 's/.*kernel-workload: window \([0-9]*\) rounds \([0-9]*\) from \([0-9.]*\) to \([0-9.]*\)$/\1 \2 \3 \4/p' |
				while read -r k r t0 t1; do
					p=$(sed -n "s/^$k //p" /tmp/toggles)
					echo "sample-overhead: window $c $i $k ${p:-unknown} $r $t0 $t1"
				done
			# A window the socket did not answer for counts as neither.
			sed 's/^/sample-overhead: | toggle: /' /tmp/e.send | head -n 3
			# What the debug registers did: their loads, the steps given up by
			# the toggles' loads, the exits handed to the guest.
			grep -E '^csan-vmm: (code breakpoints|hardware watches):' /tmp/e.log |
				sed 's/^/sample-overhead: | /'
		else
			# shellcheck disable=SC2086 # args is a word list
			csan-vmm --host=kvm --cpus=2 --memory=512M --timeout=$((secs * 10 + 300)) $args \
				--add=/csan/kernel-workload.sh:/kw.sh --run="sh /kw.sh $secs" \
				/csan/vmlinuz </dev/null >/tmp/o.log 2>/tmp/e.log
		fi
		res=$(tr -d '\r' </tmp/o.log |
			sed -n 's/^\[ *[0-9.]*\] kernel-workload: rounds \([0-9]*\) \([0-9]*\) in [0-9]* s, uptime \([0-9.]*\) s$/\1 \2 \3/p')
		if [ -n "$res" ]; then
			set -- $res
			work=$(($1 + $2)) up=$3
		else
			work=none up=0
			echo "sample-overhead: | $c: the workload did not finish; the guest's and csan-vmm's last lines:"
			tail -n 5 /tmp/o.log | sed 's/^/sample-overhead: | /'
			# Why it ended, before the counters at exit.
			grep -E -h 'Kernel panic|BUG:|Oops|WARNING:|end trace|triple fault|not a csan-vmm watch|lost|stopped on|exit status' \
				/tmp/o.log /tmp/e.log | tail -n 12 | sed 's/^/sample-overhead: | /'
			tail -n 5 /tmp/e.log | sed 's/^/sample-overhead: | /'
		fi
		line=$(grep '^csan-vmm: sampling: [0-9]* sites in the table' /tmp/e.log)
		hits=$(echo "$line" | sed -n 's/.*armed, \([0-9]*\) hits.*/\1/p')
		watches=$(echo "$line" | sed -n 's/.* \([0-9]*\) data watches.*/\1/p')
		reports=$(echo "$line" | sed -n 's/.* \([0-9]*\) reports$/\1/p')
		draws=$(sed -n 's/^csan-vmm: code breakpoints: \([0-9]*\) sets loaded.*/\1/p' /tmp/e.log)
		echo "sample-overhead: $c $i $work ${hits:-0} ${watches:-0} ${reports:-0} ${draws:-0} $up"
	done
done
