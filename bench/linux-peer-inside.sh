# linux-peer-inside.sh ROUNDS: run inside the emulated host by
# linux-boot.sh (busybox sh).  The same vmlinux, 4 vCPUs, 512 MiB, booted
# to its first KTAP line under qemu-system-x86_64 -accel kvm and under
# csan-vmm on the emulated host's one KVM, alternately ROUNDS times; the
# run is stopped at that line.  Prints "peer: NAME START END LINUX" per
# run: START and END in the emulated host's uptime seconds (10 ms steps,
# polled every 20 ms), the wall time a user waits, the VMM's own start-up
# (QEMU's firmware, csan-vmm's ELF load and symbols) included; LINUX the
# printk time of that line (printk.time=1), Linux's own part of it, which
# no VMM's start-up can take back.
rounds=${1:-3}
up() { cut -d' ' -f1 /proc/uptime; }
measure() {
	name=$1
	shift
	rm -f /tmp/m.log
	start=$(up)
	"$@" >/tmp/m.log 2>&1 </dev/null &
	pid=$!
	while ! grep -q 'KTAP version 1' /tmp/m.log; do
		if ! kill -0 "$pid" 2>/dev/null; then
			echo "peer: $name ended before the first KTAP line:"
			tail -n 5 /tmp/m.log
			exit 1
		fi
		sleep 0.02
	done
	end=$(up)
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	linux=$(tr -d '\r' </tmp/m.log | sed -n 's/^\[ *\([0-9.]*\)\] KTAP version 1.*/\1/p' | head -n 1)
	echo "peer: $name $start $end ${linux:-?}"
}
i=0
while [ "$i" -lt "$rounds" ]; do
	i=$((i + 1))
	measure qemu-kvm qemu-system-x86_64 -accel kvm -cpu host -smp 4 -m 512 \
		-kernel /csan/vmlinux -append "console=ttyS0 reboot=t panic=-1 printk.time=1" \
		-display none -serial stdio -monitor none -no-reboot -nodefaults
	measure csan-vmm csan-vmm --host=kvm --cpus=4 --memory=512M --timeout=300 \
		-a printk.time=1 /csan/vmlinux
done
