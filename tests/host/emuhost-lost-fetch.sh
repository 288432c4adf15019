# emuhost-lost-fetch.sh: the emulated host's known fault in its faces at
# a world switch (docs/harness.md).  The page-fault face: a vCPU shut down
# delivering a page fault for fetching the very instruction its kvm had
# just entered it at, on the page it was running on until its exit
# before.  The wake face: a vCPU shut down delivering an external
# interrupt at the instruction after its HLT, where kvm had woken it
# before and it had run on.  The init script's rule (entry_fault_rule in
# src/harness/emuhost-init.sh) must match those traces and no other
# shutdown: a guest's own triple fault (a data access, a jump to an
# unmapped page, an interrupt it cannot take), a host's wrong RIP
# (entered on a page the vCPU was not running on).  Then emuhost, told so
# on its control port, calls the run the emulated host's fault (125) in
# words the tests' retry rule (nested_state_lost) knows, whatever the
# command's status.  A QEMU stand-in plays the emulated host, as in
# emuhost-status-fallback.sh.
. "$top_srcdir/tests/lib.sh"
init=$top_srcdir/src/harness/emuhost-init.sh
rule=$(sed -n '/^# BEGIN entry_fault_rule$/,/^# END entry_fault_rule$/p' "$init")
[ -n "$rule" ] || fail "$init has no entry_fault_rule between its markers"
eval "$rule"
# Busybox's awk is the one the emulated host runs it with.
awk=awk
command -v busybox >/dev/null 2>&1 && awk="busybox awk"

# trace ENTRY_RIP EXIT_RIP SHUTDOWN_RIP INTR_INFO ERROR_CODE: vCPU 2's
# exit, another vCPU's entry, vCPU 2's entry and its shutdown, as ftrace
# prints kvm's events (Linux 6.1).
trace() {
	cat <<EOT
 csan-vcpu2-120 [001] d.... 10.000001: kvm_exit: vcpu 2 reason io rip $2 info1 0x00000000e5000210 info2 0x0000000000000000 intr_info 0x00000000 error_code 0x00000000
 csan-vcpu1-119 [000] d.... 10.000002: kvm_entry: vcpu 1, rip 0xffffffff81000010
 csan-vcpu2-120 [001] d.... 10.000003: kvm_entry: vcpu 2, rip $1
 csan-vcpu2-120 [001] d.... 10.000004: kvm_exit: vcpu 2 reason shutdown rip $3 info1 0x0000000000000000 info2 0x0000000000000000 intr_info $4 error_code $5
EOT
}
# matches MAKER ARGS, misses MAKER ARGS: the rule prints its line ($said)
# for the trace MAKER ARGS prints (trace, or wake below), or nothing.
matches() {
	maker=$1
	shift
	said=$($maker "$@" | $awk "$entry_fault_rule")
	[ -n "$said" ] || fail "the rule missed the fault's trace ($maker $*)"
}
misses() {
	maker=$1
	shift
	said=$($maker "$@" | $awk "$entry_fault_rule")
	[ -z "$said" ] || fail "the rule took ($maker $*) for the emulated host's fault: $said"
}
k=0xffffffff8110967b
# The face seen on 2026-12-07: kcsan_setup_watchpoint, right after csan-vmm's exit trap.
matches trace $k 0xffffffff81109679 $k 0x80000b0e 0x00000010
[ "$said" = "lost-fetch vcpu 2 rip $k entered at $k after an exit at 0xffffffff81109679 intr_info 0x80000b0e error_code 0x00000010" ] ||
	fail "the rule said: $said"
# A user-mode fetch too (error code 0x14), leading zeros and capitals.
matches trace 0x000000000040100A 0x401002 0x40100a 0x80000B0E 0x00000014
# A guest's data access (the triple-fault scenario's write: 0x2).
misses trace $k 0xffffffff81109679 $k 0x80000b0e 0x00000002
# A fetch from a present page (protection, not absence).
misses trace $k 0xffffffff81109679 $k 0x80000b0e 0x00000011
# Not a page fault being delivered (a #GP, 0x0d), or nothing valid.
misses trace $k 0xffffffff81109679 $k 0x80000b0d 0x00000010
misses trace $k 0xffffffff81109679 $k 0x00000b0e 0x00000010
# The guest ran after the entry: it shut down elsewhere.
misses trace $k 0xffffffff81109679 0xffffffff81109690 0x80000b0e 0x00000010
# Entered on another page than the exit before (what a wrong RIP set by
# the host looks like), the shutdown at that RIP.
misses trace 0xffffffff8200067b 0xffffffff81109679 0xffffffff8200067b 0x80000b0e 0x00000010
# The next page up, by one in the digits above the low 12 bits.
misses trace 0xffffffff8110a67b 0xffffffff81109679 0xffffffff8110a67b 0x80000b0e 0x00000010
# No entry of vCPU 2 traced at all (the buffer began after it).
said=$(trace $k 0xffffffff81109679 $k 0x80000b0e 0x00000010 | grep -v 'kvm_entry: vcpu 2,' |
	$awk "$entry_fault_rule")
[ -z "$said" ] || fail "the rule matched with no entry of the vCPU traced: $said"
# The exit before was another guest's vCPU 2 (another thread): the
# command may run several guests, and this one's first entry faulted.
said=$(trace $k 0xffffffff81109679 $k 0x80000b0e 0x00000010 |
	sed '1s/csan-vcpu2-120/csan-vcpu2-99/' | $awk "$entry_fault_rule")
[ -z "$said" ] || fail "the rule took another guest's exit for this vCPU's: $said"

# The wake face.  wake EARLY_HLT EARLY_ENTRY HLT ENTRY SHUTDOWN INTR_INFO:
# vCPU 10 halted at EARLY_HLT, was entered at EARLY_ENTRY and ran on to
# an MSR exit (an interrupt taken, where EARLY_ENTRY is EARLY_HLT + 1);
# halted again at HLT, was entered at ENTRY and shut down at SHUTDOWN
# delivering INTR_INFO.  (Addresses are given, not computed: a shell's
# arithmetic cannot add to Linux's.)
wake() {
	cat <<EOT
 csan-vcpu10-129 [000] d.... 16.270001: kvm_exit: vcpu 10 reason hlt rip $1 info1 0x0000000000000000 info2 0x0000000000000000 intr_info 0x00000000 error_code 0x00000000
 csan-vcpu10-129 [000] d.... 16.271001: kvm_entry: vcpu 10, rip $2
 csan-vcpu10-129 [000] d.... 16.271002: kvm_exit: vcpu 10 reason msr rip 0x101844 info1 0x0000000000000001 info2 0x0000000000000000 intr_info 0x00000000 error_code 0x00000000
 csan-vcpu9-128 [001] d.... 16.271003: kvm_exit: vcpu 9 reason hlt rip $3 info1 0x0000000000000000 info2 0x0000000000000000 intr_info 0x00000000 error_code 0x00000000
 csan-vcpu10-129 [000] d.... 16.272001: kvm_exit: vcpu 10 reason hlt rip $3 info1 0x0000000000000000 info2 0x0000000000000000 intr_info 0x00000000 error_code 0x00000000
 csan-vcpu10-129 [000] d.... 16.282037: kvm_entry: vcpu 10, rip $4
 csan-vcpu10-129 [000] d.... 16.282038: kvm_exit: vcpu 10 reason shutdown rip $5 info1 0x0000000000000000 info2 0x0000000000000000 intr_info $6 error_code 0x00000000
EOT
}
h=0x1037c1 w=0x1037c2
# The face seen on 2026-12-07 (selftest-64cpu): an AP's idle loop, the timer's vector 0xe0.
matches wake $h $w $h $w $w 0x800000e0
[ "$said" = "lost-wake vcpu 10 rip 0x1037c2 entered at 0x1037c2 after an exit at 0x1037c1 intr_info 0x800000e0 error_code 0x00000000" ] ||
	fail "the rule said: $said"
# Linux's idle HLT, the next byte in the digit above.
l=0xffffffff81c0e3ef L=0xffffffff81c0e3f0
matches wake $l $L $l $L $L 0x800000ec
# Not an external interrupt: a #PF (0x80000b0e, error code 0) or an NMI (type 2), or nothing valid.
misses wake $h $w $h $w $w 0x80000b0e
misses wake $h $w $h $w $w 0x80000202
misses wake $h $w $h $w $w 0x000000e0
# The guest ran after the entry: it shut down elsewhere.
misses wake $h $w $h $w 0x1037d0 0x800000e0
# Entered elsewhere than right after the HLT, both times.
misses wake $h 0x1037c4 $h 0x1037c4 0x1037c4 0x800000e0
# The earlier wake was at another HLT: nothing shows this one's worked.
misses wake 0x104000 0x104001 $h $w $w 0x800000e0
# The first wake failed: no earlier wake of this vCPU at that RIP ran on.
said=$(wake $h $w $h $w $w 0x800000e0 | sed '1,3d' | $awk "$entry_fault_rule")
[ -z "$said" ] || fail "the rule matched a vCPU's first wake: $said"
# The earlier wake was another thread's (another guest's vCPU 10).
said=$(wake $h $w $h $w $w 0x800000e0 | sed '1,3s/csan-vcpu10-129/csan-vcpu10-99/' |
	$awk "$entry_fault_rule")
[ -z "$said" ] || fail "the rule took another guest's wake for this vCPU's: $said"
# The earlier entry at that RIP was no wake (after an I/O exit): it
# shows nothing of an interrupt's delivery there.
said=$(wake $h $w $h $w $w 0x800000e0 | sed '1s/reason hlt/reason io/' | $awk "$entry_fault_rule")
[ -z "$said" ] || fail "the rule took an entry after an I/O exit for an earlier wake: $said"
# The exit before the fatal entry was not a HLT (an I/O exit at that RIP).
said=$(wake $h $w $h $w $w 0x800000e0 | sed '5s/reason hlt/reason io/' | $awk "$entry_fault_rule")
[ -z "$said" ] || fail "the rule matched an entry after an I/O exit: $said"

# emuhost, told on the control port, whatever the command's status.
# told LINE WORDS: the stand-in says LINE, then that the command exited
# 3; emuhost must end 125 with WORDS (a pattern) and the tests' retry
# rule must take that for the emulated host's own words.
require_emulated_host
told() {
	qemu_stand_in <<EOB
{
	echo started
	echo "$1"
	echo "exit 3"
} >"\$ctl.out"
EOB
	QEMU_SYSTEM=$work/qemu "$EMUHOST" --timeout 60 -- true </dev/null >"$out" 2>"$err"
	rc=$?
	expect_rc 125
	expect_err "^emuhost: the emulated host lost a nested guest's state while running 'true': $2; the command's status 3 is not its own\\)\$"
	expect_err '^emuhost: that is the emulated host.s fault, not the guest.s \(docs/harness.md\): run again$'
	nested_state_lost >/dev/null || fail "nested_state_lost does not take emuhost's words for: $1"
}
told "lost-fetch vcpu 2 rip $k entered at $k after an exit at 0xffffffff81109679 intr_info 0x80000b0e error_code 0x00000010" \
	"a vCPU triple-faulted on a page fault fetching the first instruction its kvm entered it at, on the page it had been running on until its exit before \\(vcpu 2 rip $k .*"
told "lost-wake vcpu 10 rip 0x1037c2 entered at 0x1037c2 after an exit at 0x1037c1 intr_info 0x800000e0 error_code 0x00000000" \
	"a vCPU triple-faulted delivering an interrupt right after its HLT, where its kvm had woken it for one before and it ran on \\(vcpu 10 rip 0x1037c2 .*"
exit 0
