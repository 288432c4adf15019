# control-session.sh VMM DIR: drive a csan-vmm through its --control socket.
#
# Runs in either test environment (inside the emulated host only busybox
# is there, so plain sh and busybox tools).  Starts VMM on a scenario that
# never ends, waits for the guest runtime to attach, then sends commands
# with VMM's own client (--send) and prints, for each step, a line
# "step NAME rc=N" followed by the reply.  At the end the server's stderr
# goes to this script's stderr and its status is printed as "vmm rc=N".
vmm=$1 dir=$2
sock=$dir/ctl.sock
. "$(dirname "$0")/wait-for.sh"

# A csan-vmm killed outright leaves its socket behind: the next must reuse it.
"$vmm" --scenario=hang --timeout=240 --control="$sock" </dev/null >/dev/null 2>&1 &
pid=$!
n=0
until [ -S "$sock" ] || [ $n -gt 300 ]; do
	n=$((n + 1))
	sleep 0.2
done
kill -9 $pid
wait $pid 2>/dev/null
[ -S "$sock" ] && echo "stale socket left"

"$vmm" --scenario=hang --timeout=240 --control="$sock" </dev/null \
	>"$dir/vmm.out" 2>"$dir/vmm.err" &
pid=$!

# The knobs are in guest RAM only once the runtime has attached.
if ! wait_for_line "$dir/vmm.out" 'host control attached' $pid; then
	echo "guest never attached"
	kill $pid 2>/dev/null
fi

step() {
	name=$1
	shift
	"$vmm" --control="$sock" "$@" >"$dir/reply" 2>&1
	echo "step $name rc=$?"
	cat "$dir/reply"
}

[ -S "$sock" ] && echo "socket exists"
# A second csan-vmm must not take over a socket that is being served.
"$vmm" --scenario=hang --timeout=240 --control="$sock" </dev/null >"$dir/second" 2>&1
echo "second rc=$?"
cat "$dir/second"
step get-default --send='get skip_watch'
step set --send='set skip_watch 100' --send='get skip_watch'
step set-range --send='set enabled 2'
step unknown --send='frobnicate'
step stats --send=stats
step watch-show --send=watch
step watch-hw --send='watch hw'
step watch-soft --send='watch soft' --send=watch
step quit --send=quit
wait $pid
echo "vmm rc=$?"
[ -e "$sock" ] || echo "socket removed"
step after-exit --send=watch
cat "$dir/vmm.err" >&2
