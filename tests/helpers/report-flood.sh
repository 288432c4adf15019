# report-flood.sh VMM DIR COUNT [CPUS]: run the report-flood scenario
# sending COUNT reports from CPUS vCPUs (default 2), sampling the VMM's
# peak resident memory (VmHWM) while it runs.  Prints "rc=R", "hwm_kb=N",
# the summary's lines and the JSON file's totals and summary objects.
vmm=$1 dir=$2 count=$3 cpus=${4:-2}
"$vmm" --cpus="$cpus" --scenario=report-flood --seed="$count" --timeout=280 \
	--report-json="$dir/flood.json" </dev/null >"$dir/out" 2>"$dir/err" &
pid=$!
hwm=0
# VmHWM only grows; the last sample before exit is within 0.5 s of the end.
while kill -0 $pid 2>/dev/null; do
	h=$(awk '/^VmHWM:/ { print $2 }' /proc/$pid/status 2>/dev/null)
	[ -n "$h" ] && hwm=$h
	sleep 0.5
done
wait $pid
echo "rc=$?"
echo "hwm_kb=$hwm"
grep -E '^(report-flood|csan-result):' "$dir/out"
grep -E '^csan-vmm: (race summary|  +[0-9]+ |guest finished)' "$dir/err"
grep -E '"type":"(totals|summary)"' "$dir/flood.json" | cut -c1-300
echo "json_reports=$(grep -c '"type":"report"' "$dir/flood.json")"
