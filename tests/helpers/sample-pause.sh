# sample-pause.sh VMM DIR VMLINUX: pause and resume --watch=sample through
# the control socket while the test kernel's race test runs its racy-plain
# case, whose two functions (the only ones sampled) run all the time: so
# every second with their code breakpoints armed brings hits, and one
# without brings none.  Prints, for each stretch, a line "STEP armed=A
# hits=H" with sampling's counters at its end (A code breakpoints armed
# so far, H hits), "set NAME rc=N" for each knob set, and at the end "vmm
# rc=N" with the server's stderr on this script's stderr.
vmm=$1 dir=$2 vmlinux=$3
sock=$dir/sample.sock
. "$(dirname "$0")/wait-for.sh"

"$vmm" --host=kvm --cpus=2 --memory=512M --timeout=400 --watch=sample --seed=26 \
	--sample-only=race_test_plain_read,race_test_plain_write --control="$sock" \
	-a "kunit.enable=0 csan_race_test=racy-plain csan_race_test_ms=120000" \
	"$vmlinux" </dev/null >"$dir/vmm.out" 2>"$dir/vmm.err" &
pid=$!

counts() {
	"$vmm" --control="$sock" --send=stats 2>/dev/null |
		sed -n 's/^csan-vmm: sampling: [0-9]* sites in the table, \([0-9]*\) code breakpoints armed, \([0-9]*\) hits;.*/armed=\1 hits=\2/p'
}
set_knob() {
	"$vmm" --control="$sock" --send="set $1 $2" >/dev/null 2>&1
	echo "set $1 rc=$?"
}

# Sampling under way: the case runs, and its sites were hit.
wait_for_line "$dir/vmm.out" 'csan-race-test: case racy-plain' $pid || echo "the case never began"
n=0
until counts | grep -qv 'hits=0$' || [ $n -gt 300 ] || ! kill -0 $pid 2>/dev/null; do
	n=$((n + 1))
	sleep 0.2
done
echo "sampling $(counts)"
set_knob sample_paused 1
# The pause takes the breakpoints off at the next draw (a period or less).
sleep 2
echo "paused $(counts)"
sleep 4
echo "still-paused $(counts)"
set_knob sample_paused 0
sleep 3
echo "resumed $(counts)"
# The case must still have been running: else no hit says nothing.
grep -q 'case racy-plain done' "$dir/vmm.out" && echo "the case ended before the last stretch"
"$vmm" --control="$sock" --send=quit >/dev/null 2>&1
wait $pid
echo "vmm rc=$?"
cat "$dir/vmm.err" >&2
