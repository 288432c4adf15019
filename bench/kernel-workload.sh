#!/bin/sh
# kernel-workload.sh SECONDS [WINDOW]: a guest's workload for --run
# (busybox sh): two loops of ordinary kernel work side by side for SECONDS
# (default 60), one per vCPU of a 2-vCPU guest: sysfs and procfs walks
# and reads, tmpfs file writes, reads and removals, pipes, process
# creation.  At the end one line says how many rounds each loop made, so
# two runs of the same time compare by throughput, and the guest's uptime
# then, the time its VMM's counters cover: "kernel-workload: rounds A B
# in S s, uptime U s".
# With WINDOW (seconds, at least 3), the run is also cut into windows of
# that length, for a host that changes something at each one's start (a
# detector paused, then not): "kernel-workload: window K" opens window K;
# one second later (the host's change in place) the loops' rounds are
# counted until the window ends: "kernel-workload: window K rounds N
# from T0 to T1", T0 and T1 the guest's uptime in seconds.
secs=${1:-60} window=${2:-}
up() { cut -d. -f1 /proc/uptime; }
loop() {
	n=0 end=$(($(up) + secs))
	while [ "$(up)" -lt "$end" ]; do
		ls -l /sys/kernel /sys/devices/system/cpu >/dev/null 2>&1
		cat /proc/meminfo /proc/stat /proc/self/maps >/dev/null
		dd if=/dev/zero of="/tmp/kw.$1" bs=4k count=8 2>/dev/null
		md5sum "/tmp/kw.$1" >/dev/null
		rm -f "/tmp/kw.$1"
		echo "$n" | cat >/dev/null
		n=$((n + 1))
		# One byte a round: the file's size counts them, and only grows.
		[ -n "$window" ] && printf . >>"/tmp/kw.$1.n"
	done
	echo "$n" >"/tmp/kw.$1.rounds"
}
# Both loops' rounds so far.
rounds_now() {
	stat -c %s /tmp/kw.a.n /tmp/kw.b.n | {
		read -r a
		read -r b
		echo $((a + b))
	}
}
windows() {
	# Two seconds to spare: a window's own work may end it late.
	k=0 last=$(($(up) + secs - window - 2))
	until [ -e /tmp/kw.a.n ] && [ -e /tmp/kw.b.n ]; do sleep 0.1; done
	while [ "$(up)" -le "$last" ]; do
		k=$((k + 1))
		echo "kernel-workload: window $k" >/dev/kmsg
		sleep 1
		r0=$(rounds_now) t0=$(cut -d' ' -f1 /proc/uptime)
		sleep $((window - 1))
		r1=$(rounds_now) t1=$(cut -d' ' -f1 /proc/uptime)
		echo "kernel-workload: window $k rounds $((r1 - r0)) from $t0 to $t1" >/dev/kmsg
	done
}
rm -f /tmp/kw.a.n /tmp/kw.b.n
loop a &
loop b &
[ -n "$window" ] && windows &
wait
# Through the kernel's log: one record reaches the console whole, where a
# shell's line on the console tty can be cut by the kernel's own messages
# at power-off.
echo "kernel-workload: rounds $(cat /tmp/kw.a.rounds) $(cat /tmp/kw.b.rounds) in $secs s, uptime $(cut -d' ' -f1 /proc/uptime) s" >/dev/kmsg
