# sample-overhead-inside.sh ROUNDS SECONDS CONFIG...: run inside the emulated
# host by sample-overhead.sh (busybox sh).  Debian's stock kernel
# (/csan/vmlinuz, its debug vmlinux /csan/vmlinux) on 2 vCPUs runs
# kernel-workload.sh for SECONDS under csan-vmm, once per CONFIG in turn,
# ROUNDS times, so that the emulated host's slow moments fall on all of
# them alike.  A CONFIG is "none" (no detector: csan-vmm's default watch
# mode on a kernel without KCSAN does nothing) or "pMS" followed by any
# of "-bN", "-dMS", "-cold": --watch=sample with --sample-period=MS (and
# --sample-breakpoints=N, --sample-delay=MS, sites only in functions the
# workload never runs).
# Prints one line per run: "sample-overhead: CONFIG ROUND WORK HITS
# WATCHES REPORTS LOADS UPTIME", WORK the two loops' rounds summed ("none"
# when the workload did not finish), then csan-vmm's counts (its sampling
# line, and its code-breakpoint sets loaded) and the guest's uptime at
# the workload's end, the time those counts cover.
rounds=$1 secs=$2
# Functions the workload never runs (kexec and crash dumps): drawing only
# these, the vCPUs load new breakpoints as often as at any period but
# none is hit and none sits in code that runs.
cold='machine_kexec*,crash_kexec,crash_save_*,crash_prepare_elf64_headers,kexec_add_buffer,kexec_load_purgatory,kexec_locate_mem_hole'
shift 2
configs=$*
i=0
while [ "$i" -lt "$rounds" ]; do
	i=$((i + 1))
	for c in $configs; do
		args=
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
				*) echo "sample-overhead: no such config: $c"; exit 1 ;;
				esac
			done
			;;
		*) echo "sample-overhead: no such config: $c"; exit 1 ;;
		esac
		# shellcheck disable=SC2086 # args is a word list
		csan-vmm --host=kvm --cpus=2 --memory=512M --timeout=$((secs * 10 + 300)) $args \
			--add=/csan/kernel-workload.sh:/kw.sh --run="sh /kw.sh $secs" \
			/csan/vmlinuz </dev/null >/tmp/o.log 2>/tmp/e.log
		res=$(tr -d '\r' </tmp/o.log |
			sed -n 's/^\[ *[0-9.]*\] kernel-workload: rounds \([0-9]*\) \([0-9]*\) in [0-9]* s, uptime \([0-9.]*\) s$/\1 \2 \3/p')
		if [ -n "$res" ]; then
			set -- $res
			work=$(($1 + $2)) up=$3
		else
			work=none up=0
			echo "sample-overhead: | $c: the workload did not finish; the guest's and csan-vmm's last lines:"
			tail -n 5 /tmp/o.log | sed 's/^/sample-overhead: | /'
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
