#!/bin/sh
# kernel-workload.sh SECONDS: a guest's workload for --run (busybox sh):
# two loops of ordinary kernel work side by side for SECONDS (default 60),
# one per vCPU of a 2-vCPU guest: sysfs and procfs walks and reads, tmpfs
# file writes, reads and removals, pipes, process creation.  At the end
# one line says how many rounds each loop made, so two runs of the same
# time compare by throughput, and the guest's uptime then, the time its
# VMM's counters cover: "kernel-workload: rounds A B in S s, uptime U s".
secs=${1:-60}
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
	done
	echo "$n" >"/tmp/kw.$1.rounds"
}
loop a &
loop b &
wait
# Through the kernel's log: one record reaches the console whole, where a
# shell's line on the console tty can be cut by the kernel's own messages
# at power-off.
echo "kernel-workload: rounds $(cat /tmp/kw.a.rounds) $(cat /tmp/kw.b.rounds) in $secs s, uptime $(cut -d' ' -f1 /proc/uptime) s" >/dev/kmsg
