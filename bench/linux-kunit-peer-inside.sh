# linux-kunit-peer-inside.sh ROUNDS [NAME...]: run inside the emulated host by
# linux-kunit-peer.sh (busybox sh).  Linux's KCSAN KUnit suite on
# /csan/vmlinux, 4 vCPUs, 512 MiB, under qemu-system-x86_64 -accel kvm,
# csan-vmm in soft mode and csan-vmm in hw mode, one after the other,
# ROUNDS times, so that the emulated host's slow moments fall on all three
# alike.  Prints one line per run: "kunit-peer: NAME ROUND PASS FAIL SKIP
# SECONDS FAILED-CASES..." (PASS "none" when the suite did not finish,
# followed by the run's last lines as "kunit-peer-why: NAME ROUND: LINE").
# NAMEs (qemu-kvm, csan-soft, csan-hw; default all three) pick the runs.
rounds=${1:-10}
[ $# -gt 0 ] && shift
names=${*:-qemu-kvm csan-soft csan-hw}
append="kunit_shutdown=reboot"
run() {
	name=$1
	shift
	start=$(cut -d' ' -f1 /proc/uptime)
	"$@" </dev/null >/tmp/k.log 2>&1
	end=$(cut -d' ' -f1 /proc/uptime)
	tr -d '\r' </tmp/k.log >/tmp/k.txt
	res=$(sed -n 's/.*# kcsan: pass:\([0-9]*\) fail:\([0-9]*\) skip:\([0-9]*\).*/\1 \2 \3/p' /tmp/k.txt | head -n 1)
	failed=$(sed -n 's/^ \{4\}not ok [0-9]* \(test_[a-z0-9_]*\)$/\1/p' /tmp/k.txt | tr '\n' ' ')
	secs=$(echo "$start $end" | awk '{ printf "%.1f", $2 - $1 }')
	echo "kunit-peer: $name $i ${res:-none - -} $secs $failed"
	# A suite that did not finish: how the run ended, in its own last words.
	[ -n "$res" ] || tail -n 12 /tmp/k.txt | sed "s/^/kunit-peer-why: $name $i: /"
}
i=0
while [ "$i" -lt "$rounds" ]; do
	i=$((i + 1))
	for name in $names; do
		case $name in
		qemu-kvm)
			run qemu-kvm timeout 900 qemu-system-x86_64 -accel kvm -cpu host -smp 4 -m 512 \
				-kernel /csan/vmlinux -append "console=ttyS0 reboot=t panic=-1 $append" \
				-display none -serial stdio -monitor none -no-reboot -nodefaults ;;
		csan-soft)
			run csan-soft csan-vmm --host=kvm --cpus=4 --memory=512M --timeout=900 \
				-a "$append" /csan/vmlinux ;;
		csan-hw)
			run csan-hw csan-vmm --host=kvm --watch=hw --cpus=4 --memory=512M --timeout=900 \
				-a "$append" /csan/vmlinux ;;
		*) echo "kunit-peer: no such run: $name"; exit 1 ;;
		esac
	done
done
