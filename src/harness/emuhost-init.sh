#!/bin/sh
# emuhost-init: /init of the emulated host; loads kvm, runs the command, reports its status.
#
# Serial ports (set up by emuhost):
#   ttyS0  kernel console and this script's own chatter (a log file on the host)
#   ttyS1  the command's stdout, and its stdin with emuhost --stdin
#   ttyS2  the command's stderr
#   ttyS3  control, out: "started", the --output files ("file N", base64,
#          "end N", or "nofile N"), then "exit N" or "nokvm REASON";
#          in: "signal INT|TERM|HUP", passed on to the command
export PATH=/csan:/bin:/sbin:/usr/bin:/usr/sbin HOME=/root
mount -t devtmpfs devtmpfs /dev
mount -t proc proc /proc
# What udev would add: /dev/stdout and friends, so --report-json=/dev/stdout works.
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
mount -t sysfs sysfs /sys
mount -t tmpfs -o mode=1777 tmpfs /tmp
exec </dev/null >/dev/ttyS0 2>&1
# A sign of life on the console every 5 s, from the start: emuhost stops
# an emulated host whose console falls silent (TCG can freeze it whole,
# where its own watchdog cannot speak either).
# (Its PID is kept for tests/host/emuhost-silent.sh, which silences it.)
(while :; do echo emuhost-alive; sleep 5; done) &
echo $! >/tmp/.emuhost-alive.pid

# Raw mode: no \n -> \r\n translation, so binary output passes unchanged.
for n in 1 2 3; do
	stty -F /dev/ttyS$n raw -echo || echo "emuhost-init: stty ttyS$n failed"
done

# The control port stays open on fd 3 for the whole run: opening a serial
# tty while its last other user is closing it fails with EAGAIN, which
# would lose a control line.
exec 3<>/dev/ttyS3
ctl() { echo "$*" >&3; }
# Report and power off; closing the control port (its last user) waits
# until the UART has sent everything; poweroff -f does not return, the
# sleep is a guard.  The command's status also goes to the console, which
# the kernel writes before the write returns: once, under heavy load, the
# control port's "exit N" never reached emuhost although the command's
# whole output had, and emuhost takes the status from there then.
finish() {
	# --disk: what reached the emulated host's page cache goes to QEMU's drive.
	[ -e /.emuhost/disks ] && sync
	ctl "$*"
	case "$*" in "exit "*) echo "<2>emuhost-status: $*" >/dev/kmsg 2>/dev/null ;; esac
	exec 3>&-
	poweroff -f
	sleep 60
}

# uart_tx N: the bytes ttyS<N>'s UART has sent since boot.
uart_tx() {
	sed -n "s/^$1: .* tx:\([0-9]*\) .*/\1/p" /proc/tty/driver/serial
}

# watch_ports N PID...: for each serial port N and the PID of the relay
# writing to it, every 5 s: has the UART sent anything, and is the relay
# waiting to hand the port more (not waiting for the command's output)?
# While it is and the UART has sent nothing for 30 s or more, say "stall
# ttyS<N> <seconds>" on the control port; emuhost decides whether that is
# the emulated host's fault (its own reader of that port is waiting for
# data, not stuck writing it on).
watch_ports() {
	ports=""
	while [ $# -ge 2 ]; do
		eval "pid_$1=$2 last_$1=-1 still_$1=0"
		ports="$ports $1"
		shift 2
	done
	while sleep 5; do
		for n in $ports; do
			eval "pid=\$pid_$n last=\$last_$n still=\$still_$n"
			tx=$(uart_tx "$n")
			[ -n "$tx" ] && [ -r "/proc/$pid/wchan" ] || continue
			# A relay blocked reading its fifo has nothing to send.
			case $(cat "/proc/$pid/wchan" 2>/dev/null) in
			*pipe_read* | *pipe_wait*) still=0 ;;
			*) if [ "$tx" = "$last" ]; then still=$((still + 5)); else still=0; fi ;;
			esac
			[ "$still" -ge 30 ] && ctl "stall ttyS$n $still"
			eval "last_$n=$tx still_$n=$still"
		done
	done
}

# lost_state_watch: the emulated host's known fault (docs/harness.md,
# "Known faults"): QEMU's TCG emulation of SVM now and then loses a nested
# guest's state, and that guest then runs, exits or triple-faults at an
# address in this kernel's own kvm modules, where it has no code.  kvm's
# kvm_exit tracepoint, filtered to exits at such an address (a compare per
# exit), records it.  The addresses are kvm's and kvm_amd's from
# /proc/modules, or /.emuhost/lost-state-range ("LOW HIGH", from
# CSAN_HARNESS_LOST_STATE_RANGE, which the harness's test uses to point
# the same watch at the guest's own code).  Turned on before the command
# starts; lost_state_said then says what it caught.
lost_state_trace=/sys/kernel/tracing
lost_state_watch() {
	t=$lost_state_trace
	mount -t tracefs tracefs "$t" 2>/dev/null
	[ -w "$t/events/kvm/kvm_exit/filter" ] || {
		echo "emuhost-init: no kvm_exit tracepoint: the lost-state watch is off"
		return 1
	}
	filter=""
	if [ -r /.emuhost/lost-state-range ]; then
		read -r low high </.emuhost/lost-state-range
		filter="(guest_rip >= $low && guest_rip < $high)"
	else
		while read -r name size _ _ _ base _; do
			case $name in kvm | kvm_amd) ;; *) continue ;; esac
			high=$(printf '0x%x' $((base + size)))
			filter="${filter:+$filter || }(guest_rip >= $base && guest_rip < $high)"
		done </proc/modules
	fi
	[ -n "$filter" ] || return 1
	if ! { echo "$filter" >"$t/events/kvm/kvm_exit/filter" &&
		echo 1 >"$t/events/kvm/kvm_exit/enable"; }; then
		echo "emuhost-init: the kvm_exit filter '$filter' was refused: the lost-state watch is off"
		return 1
	fi
	echo "emuhost-init: lost-state watch on: $filter"
}

# lost_state_said: the first exits the watch caught, each said once on the
# control port as "lost-state ..." (emuhost then calls the run the
# emulated host's fault); true when there were any.
lost_state_said() {
	[ -e /tmp/.emuhost-lost-said ] && return 0
	lines=$(grep -v '^#' "$lost_state_trace/trace" 2>/dev/null | sed -n 's/.*kvm_exit: //p' | head -n 3)
	[ -n "$lines" ] || return 1
	echo "$lines" | while read -r line; do ctl "lost-state $line"; done
	: >/tmp/.emuhost-lost-said
}

# shutdown_watch: what a nested guest's vCPU did just before it shut
# down (a triple fault), which csan-vmm cannot say under kvm-amd: kvm-amd
# resets the vCPU at the shutdown, so its registers and stack are gone.
# A trace instance of its own keeps kvm's exits for exceptions (exit
# codes 0x40-0x5f: the #DB and #BP of the debug registers' work, any other
# exception kvm intercepts) and for the shutdown (0x7f), with the
# exceptions kvm injects; the first shutdown turns the instance off (a
# traceoff trigger), so the events before it stay.  Nothing is traced on
# the common exits (I/O, interrupts, nested page faults); the buffer
# keeps the newest events.
shutdown_trace=$lost_state_trace/instances/emuhost-shutdown
shutdown_watch() {
	t=$shutdown_trace
	[ -d "$lost_state_trace/instances" ] && mkdir "$t" 2>/dev/null &&
		echo 64 >"$t/buffer_size_kb" &&
		echo '(exit_reason >= 64 && exit_reason < 96) || exit_reason == 127' \
			>"$t/events/kvm/kvm_exit/filter" &&
		echo 'traceoff if exit_reason == 127' >"$t/events/kvm/kvm_exit/trigger" &&
		echo 1 >"$t/events/kvm/kvm_exit/enable" &&
		echo 1 >"$t/events/kvm/kvm_inj_exception/enable" || {
		echo "emuhost-init: the kvm shutdown trace could not be set up: what comes before a triple fault goes unrecorded"
		return 1
	}
}

# entry_watch: for the shutdowns that are the known fault's other faces
# (entry_fault_rule, below): every kvm entry and exit, in a trace
# instance of its own, until the first shutdown turns it off.  The buffer
# keeps the newest events, so the shut-down vCPU's last entry, the exit
# before it and its earlier wakes from HLT are there.
entry_trace=$lost_state_trace/instances/emuhost-entry
entry_watch() {
	t=$entry_trace
	mkdir "$t" 2>/dev/null &&
		echo 256 >"$t/buffer_size_kb" &&
		echo 'traceoff if exit_reason == 127' >"$t/events/kvm/kvm_exit/trigger" &&
		echo 1 >"$t/events/kvm/kvm_exit/enable" &&
		echo 1 >"$t/events/kvm/kvm_entry/enable" || {
		echo "emuhost-init: the kvm entry trace could not be set up: a lost state's page-fault and wake faces go untold"
		return 1
	}
}

# entry_fault_said: whether the shutdown is one of the known fault's
# faces at a world switch, said on the control port as "lost-fetch ..."
# or "lost-wake ..." (emuhost then calls the run the emulated host's
# fault).  Both need the shutdown's RIP to be the RIP kvm last entered
# that vCPU at: not one instruction of the guest ran.  Then:
#   lost-fetch: the shutdown came while delivering a page fault for an
#   instruction fetch from a page not present (intr_info vector 14, error
#   code with the fetch bit and without the present bit), and the vCPU's
#   exit before that entry was on the same 4 KiB page: it had been
#   fetching from that page until then.  A host that set a wrong RIP sets
#   one the guest was not just running on;
#   lost-wake: the shutdown came while delivering an external interrupt
#   (intr_info type 0), the exit before that entry was a HLT on the
#   byte before (kvm woke the vCPU from HLT to take the interrupt), and
#   the trace holds an earlier wake of the same vCPU at the same RIP after
#   which it ran on to another exit: an interrupt (its vector not traced)
#   had been delivered from the same halted place, in an idle loop from
#   the same stack.  A guest whose IDT, GDT or stack cannot take
#   interrupts fails its first one; one broken while the vCPU was halted
#   is not told apart (docs/harness.md).  A HLT on a page's last byte is
#   not taken for one.
# A guest's own triple fault (a data access, a jump to an unmapped page,
# its first interrupt with a broken stack) misses them.  The rule runs
# on the instance's trace and prints the face and the shutdown it
# matched.
# Addresses are compared as digit strings: awk's numbers are doubles.
# (tests/host/emuhost-lost-fetch.sh runs it on traces made up to match
# and to miss, from the text between these markers.)
# BEGIN entry_fault_rule
entry_fault_rule='
	function addr(s) {
		s = tolower(s); sub(/^0x0*/, "", s)
		return s
	}
	function page(s) {
		s = addr(s)
		return length(s) > 3 ? substr(s, 1, length(s) - 3) : ""
	}
	function hex32(s,   n, i) {
		n = 0; s = addr(s)
		for (i = 1; i <= length(s); i++)
			n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return n
	}
	# Whether b is a + 1 on the same page (a HLT is one byte long).
	function next_byte(a, b) {
		return page(a) == page(b) && hex32(substr(addr(a), length(page(a)) + 1)) + 1 == \
			hex32(substr(addr(b), length(page(b)) + 1))
	}
	function field(name,   i) {
		for (i = 1; i < NF; i++) if ($i == name) return $(i + 1)
		return ""
	}
	# Keyed by the vCPU thread (the first field of ftrace, comm-pid): the
	# command may run several guests, each with its vCPU 0, 1...
	/ kvm_entry: vcpu / {
		t = $1
		entry[t] = field("rip"); before[t] = last_exit[t]
		waking[t] = last_reason[t] == "hlt" && next_byte(last_exit[t], entry[t])
		next
	}
	/ kvm_exit: vcpu / {
		v = field("vcpu"); t = $1
		if (field("reason") != "shutdown") {
			if (waking[t]) woke[t, addr(entry[t])] = 1
			waking[t] = 0
			last_exit[t] = field("rip"); last_reason[t] = field("reason")
			next
		}
		rip = field("rip"); info = hex32(field("intr_info")); code = hex32(field("error_code"))
		said = "vcpu " v " rip " rip " entered at " entry[t] " after an exit at " before[t] \
		       " intr_info " field("intr_info") " error_code " field("error_code")
		if (info < 2147483648 || entry[t] == "" || addr(entry[t]) != addr(rip) || before[t] == "")
			exit
		if (info % 256 == 14 && int(code / 16) % 2 == 1 && code % 2 == 0 &&
		    page(before[t]) == page(rip))
			print "lost-fetch " said
		else if (int(info / 256) % 8 == 0 && waking[t] && woke[t, addr(rip)])
			print "lost-wake " said
		exit
	}'
# END entry_fault_rule
entry_fault_said() {
	[ "$(cat "$entry_trace/tracing_on" 2>/dev/null)" = 0 ] || return 1
	found=$(grep -v '^#' "$entry_trace/trace" | awk "$entry_fault_rule")
	[ -n "$found" ] || return 1
	ctl "$found"
}

# shutdown_said: after the command, when a nested guest shut down, the
# last 16 events before it and the shutdown itself, each on the control
# port as "shutdown ..." (emuhost prints them; they change no status).
shutdown_said() {
	[ "$(cat "$shutdown_trace/tracing_on" 2>/dev/null)" = 0 ] || return 0
	grep -v '^#' "$shutdown_trace/trace" | tail -n 17 |
		sed 's/^ *//; s/  */ /g' | while read -r line; do ctl "shutdown $line"; done
}

# Modules in dependency order (written by emuhost --setup).
while read -r mod; do
	if ! msg=$(insmod "/lib/modules/$mod" 2>&1); then
		finish "nokvm insmod $mod failed ($msg); kernel says: $(dmesg | tail -n 3 | tr '\n' ' ')"
	fi
done </lib/modules/order

# devtmpfs creates the node when kvm registers; allow a moment anyway.
n=0
while [ ! -c /dev/kvm ] && [ $n -lt 20 ]; do sleep 0.1; n=$((n + 1)); done
[ -c /dev/kvm ] || finish "nokvm kvm modules loaded but /dev/kvm did not appear; kernel says: $(dmesg | tail -n 3 | tr '\n' ' ')"

# --disk: the virtio drivers, then wait for each disk's node (QEMU's virtio
# drives are /dev/vda, vdb...; the PCI probe is quick but not instant).
if [ -r /.emuhost/disks ]; then
	while read -r mod; do
		if ! msg=$(insmod "/lib/modules/disk/$mod" 2>&1); then
			echo "emuhost: insmod $mod failed ($msg): --disk cannot work" >/dev/ttyS2
			finish "exit 125"
		fi
	done </lib/modules/disk/order
	while read -r dev; do
		n=0
		while [ ! -b "$dev" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
		if [ ! -b "$dev" ]; then
			echo "emuhost: the disk did not appear as $dev; kernel says: $(dmesg | tail -n 3 | tr '\n' ' ')" >/dev/ttyS2
			finish "exit 125"
		fi
	done </.emuhost/disks
fi

# Said while the command runs too, so that a run the fault left hanging
# still carries the words when emuhost stops it.
lost_watcher=""
if lost_state_watch; then
	(while sleep 2; do lost_state_said && break; done) &
	lost_watcher=$!
fi
shutdown_on=""
shutdown_watch && shutdown_on=1
entry_on=""
entry_watch && entry_on=1

cd /csan || exit 1   # cannot happen: the base initramfs has /csan
# The args file holds `set -- 'COMMAND' 'ARG'...`, quoted by emuhost.
. /.emuhost/args
ctl started
if ! command -v "$1" >/dev/null; then
	echo "emuhost: $1: command not found in the emulated host (carry it with --file)" >/dev/ttyS2
	finish "exit 127"
fi
# Closing ttyS1/ttyS2 after the command waits until the UART has sent
# everything, so no output is lost at power-off.  The serial ports are
# ttys but relay raw bytes to files on the host: TERM=dumb says no cursor
# control (csan-vmm then draws no status line).
input=/dev/null
[ -e /.emuhost/stdin ] && input=/dev/ttyS1
# The command writes into fifos, and one cat per port relays them to its
# UART: a relay waiting to write (/proc/PID/wchan) while the UART sends
# nothing (/proc/tty/driver/serial) is a port that stopped sending.
mkfifo /tmp/.emuhost-out /tmp/.emuhost-err
cat /tmp/.emuhost-out >/dev/ttyS1 3>&- &
out_relay=$!
cat /tmp/.emuhost-err >/dev/ttyS2 3>&- &
err_relay=$!
TERM=dumb "$@" <$input >/tmp/.emuhost-out 2>/tmp/.emuhost-err 3>&- &
cmd=$!
watch_ports 1 "$out_relay" 2 "$err_relay" &
port_watcher=$!
# Signals emuhost was sent, passed on so the command ends its own way.
(
	while read -r word sig; do
		[ "$word" = signal ] && kill -"$sig" "$cmd" 2>/dev/null
	done <&3
) &
reader=$!
# wait returns early only for signals this shell traps (none): this is
# the command's own status.
wait "$cmd"
status=$?
kill "$reader" 2>/dev/null
# The relays end at the end of their fifos, once the UART has sent all
# (closing a serial tty waits for that); a child the command left behind
# that still holds them open is not waited for beyond a minute.
n=0
while kill -0 "$out_relay" 2>/dev/null || kill -0 "$err_relay" 2>/dev/null; do
	[ $n -lt 600 ] || { kill "$out_relay" "$err_relay" 2>/dev/null; break; }
	sleep 0.1
	n=$((n + 1))
done
kill "$port_watcher" 2>/dev/null
# A last look: a fault in the command's last 2 s is still the run's.
if [ -n "$lost_watcher" ]; then
	kill "$lost_watcher" 2>/dev/null
	lost_state_said
fi
[ -z "$shutdown_on" ] || shutdown_said
[ -z "$entry_on" ] || entry_fault_said
n=0
if [ -r /.emuhost/outputs ]; then
	while read -r path; do
		if [ -f "$path" ]; then
			{ echo "file $n"; base64 "$path"; echo "end $n"; } >&3
		else
			ctl "nofile $n"
		fi
		n=$((n + 1))
	done </.emuhost/outputs
fi
finish "exit $status"
