# exit-paths.sh VMM DIR [CPUS]: end a run that has reported races in each
# way a run can end other than the guest finishing: SIGINT, SIGTERM,
# --timeout and a guest panic.  The guest (report-flood, on CPUS vCPUs,
# default 2) sends 1000 reports first.  For each way prints "WAY rc=R",
# the race summary and closing lines and the JSON totals and exit record.
vmm=$1 dir=$2 cpus=${3:-2}
sent=1000
spin=$((4294967296 + sent))   # bit 32: spin after sending
panic=$((8589934592 + sent))  # bit 33: panic after sending

show() {
	echo "$1 rc=$2"
	grep -E '^csan-vmm: (race summary|stopped by|.*timeout=|vCPU [0-9]+: guest panic|exit status)' "$dir/err-$1" |
		sed "s/^/$1: /"
	grep -E '"type":"(totals|summary|exit)"' "$dir/$1.json" 2>/dev/null | cut -c1-200 | sed "s/^/$1: /"
}

# A background job would start with SIGINT ignored (POSIX), so csan-vmm
# runs in the foreground, through an sh that records its pid and execs it,
# and the signal comes from a background watcher.
by_signal() {
	sig=$1
	rm -f "$dir/pid"
	(
		n=0
		until [ -s "$dir/pid" ] && grep -q '^report-flood: spinning' "$dir/out-$sig" 2>/dev/null; do
			n=$((n + 1))
			[ $n -gt 1200 ] && exit 1
			sleep 0.2
		done
		kill -"$sig" "$(cat "$dir/pid")"
	) &
	watcher=$!
	sh -c 'echo $$ >"$0"; exec "$@"' "$dir/pid" "$vmm" --cpus="$cpus" --scenario=report-flood \
		--seed=$spin --timeout=240 --report-json="$dir/$sig.json" \
		</dev/null >"$dir/out-$sig" 2>"$dir/err-$sig"
	rc=$?
	wait $watcher
	show "$sig" $rc
}

by_signal INT
by_signal TERM

"$vmm" --cpus="$cpus" --scenario=report-flood --seed=$spin --timeout=20 \
	--report-json="$dir/timeout.json" </dev/null >"$dir/out-timeout" 2>"$dir/err-timeout"
show timeout $?

"$vmm" --cpus="$cpus" --scenario=report-flood --seed=$panic --timeout=240 \
	--report-json="$dir/panic.json" </dev/null >"$dir/out-panic" 2>"$dir/err-panic"
show panic $?
