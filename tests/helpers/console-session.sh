# console-session.sh VMM DIR MODE: type Ctrl-a escape keys at a csan-vmm.
#
# MODE pipe: standard input is a FIFO and --console-escapes=on asks for
# the keys anyway; MODE pty: util-linux script(1) gives csan-vmm a
# terminal (SCRIPT names its binary), so the automatic mode and the
# terminal's raw mode are what is tested, and stty -a afterwards shows
# whether the terminal was put back; MODE exit: a guest that finishes by
# itself while standard input stays open and silent must still end the
# run (the key reader must not keep csan-vmm waiting).  Busybox sh and tools only, so it
# also runs in the emulated host.  Prints csan-vmm's output (both
# streams, through the pty in pty mode) and "vmm rc=N".
vmm=$1 dir=$2 mode=$3
. "$(dirname "$0")/wait-for.sh"
fifo=$dir/keys
log=$dir/console.log
mkfifo "$fifo" || exit 99

if [ "$mode" = pty ]; then
	# Inside the pty, after csan-vmm: the terminal settings it left behind.
	"${SCRIPT:-script}" -qec "'$vmm' --scenario=hang --timeout=240; echo \"vmm rc=\$?\"; stty -a" \
		/dev/null <"$fifo" >"$log" 2>&1 &
elif [ "$mode" = exit ]; then
	"$vmm" --scenario=selftest --timeout=240 --console-escapes=on <"$fifo" >"$log" 2>&1 &
else
	"$vmm" --scenario=hang --timeout=240 --console-escapes=on <"$fifo" >"$log" 2>&1 &
fi
pid=$!
# Held open until the end: at end of input script(1) would hang up.
exec 3>"$fifo"

if [ "$mode" = exit ]; then
	wait $pid
	echo "vmm rc=$?"
	exec 3>&-
	cat "$log"
	exit 0
fi

wait_for_line "$log" 'host control attached' $pid || echo "guest never attached"
printf '\001h' >&3
printf '\001s' >&3
printf '\001w' >&3
printf 'q' >&3
printf '\001z' >&3
sleep 1
printf '\001x' >&3
wait $pid
rc=$?
exec 3>&-
cat "$log"
[ "$mode" = pty ] || echo "vmm rc=$rc"
