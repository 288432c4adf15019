# sandbox-threads.sh VMM DIR [OPTION...]: which of a running csan-vmm's
# threads are under a seccomp filter.
#
# Runs in either test environment (busybox sh and tools only).  Starts VMM
# with OPTIONs on a scenario that never ends, waits until the guest says
# all its CPUs are online (so every vCPU thread has run guest code, past
# the point where it enters the sandbox), then prints "thread NAME seccomp=MODE" for
# each thread, from /proc/PID/task/*/status (0: none, 2: filter), stops VMM
# with SIGTERM and prints "vmm rc=N".
vmm=$1 dir=$2
shift 2
. "$(dirname "$0")/wait-for.sh"

"$vmm" --scenario=hang --timeout=240 "$@" </dev/null >"$dir/vmm.out" 2>"$dir/vmm.err" &
pid=$!
if ! wait_for_line "$dir/vmm.out" ' CPUs online' $pid; then
	echo "guest CPUs never came online"
	cat "$dir/vmm.err" >&2
	kill $pid 2>/dev/null
	exit 1
fi
for task in /proc/$pid/task/*; do
	name=$(cat "$task/comm")
	mode=$(awk '$1 == "Seccomp:" { print $2 }' "$task/status")
	echo "thread $name seccomp=$mode"
done
kill -TERM $pid
wait $pid
echo "vmm rc=$?"
cat "$dir/vmm.err" >&2
