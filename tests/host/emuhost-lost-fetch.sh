# emuhost-lost-fetch.sh: the emulated host's known fault in its page-fault
# face (docs/harness.md): a vCPU shut down delivering a page fault for
# fetching the very instruction its kvm had just entered it at, on the
# page it was running on until its exit before.  The init script's rule
# (fetch_fault_rule in src/harness/emuhost-init.sh) must match that trace
# and no other shutdown: a guest's own triple fault (a data access, a
# jump to an unmapped page) or a host's wrong RIP (entered on a page the
# vCPU was not running on).  Then emuhost, told so on its control port,
# calls the run the emulated host's fault (125) in words the tests' retry
# rule (nested_state_lost) knows, whatever the command's status.  A QEMU
# stand-in plays the emulated host, as in emuhost-status-fallback.sh.
. "$top_srcdir/tests/lib.sh"
init=$top_srcdir/src/harness/emuhost-init.sh
rule=$(sed -n '/^# BEGIN fetch_fault_rule$/,/^# END fetch_fault_rule$/p' "$init")
[ -n "$rule" ] || fail "$init has no fetch_fault_rule between its markers"
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
# matches ARGS, misses ARGS: the rule prints its line ($said) for trace
# ARGS, or nothing.
matches() {
	said=$(trace "$@" | $awk "$fetch_fault_rule")
	[ -n "$said" ] || fail "the rule missed the fault's trace ($*)"
}
misses() {
	said=$(trace "$@" | $awk "$fetch_fault_rule")
	[ -z "$said" ] || fail "the rule took ($*) for the emulated host's fault: $said"
}
k=0xffffffff8110967b
# The face seen on 2026-12-07: kcsan_setup_watchpoint, right after csan-vmm's exit trap.
matches $k 0xffffffff81109679 $k 0x80000b0e 0x00000010
[ "$said" = "vcpu 2 rip $k entered at $k after an exit at 0xffffffff81109679 intr_info 0x80000b0e error_code 0x00000010" ] ||
	fail "the rule said: $said"
# A user-mode fetch too (error code 0x14), leading zeros and capitals.
matches 0x000000000040100A 0x401002 0x40100a 0x80000B0E 0x00000014
# A guest's data access (the triple-fault scenario's write: 0x2).
misses $k 0xffffffff81109679 $k 0x80000b0e 0x00000002
# A fetch from a present page (protection, not absence).
misses $k 0xffffffff81109679 $k 0x80000b0e 0x00000011
# Not a page fault being delivered (a #GP, 0x0d), or nothing valid.
misses $k 0xffffffff81109679 $k 0x80000b0d 0x00000010
misses $k 0xffffffff81109679 $k 0x00000b0e 0x00000010
# The guest ran after the entry: it shut down elsewhere.
misses $k 0xffffffff81109679 0xffffffff81109690 0x80000b0e 0x00000010
# Entered on another page than the exit before (what a wrong RIP set by
# the host looks like), the shutdown at that RIP.
misses 0xffffffff8200067b 0xffffffff81109679 0xffffffff8200067b 0x80000b0e 0x00000010
# The next page up, by one in the digits above the low 12 bits.
misses 0xffffffff8110a67b 0xffffffff81109679 0xffffffff8110a67b 0x80000b0e 0x00000010
# No entry of vCPU 2 traced at all (the buffer began after it).
said=$(trace $k 0xffffffff81109679 $k 0x80000b0e 0x00000010 | grep -v 'kvm_entry: vcpu 2,' |
	$awk "$fetch_fault_rule")
[ -z "$said" ] || fail "the rule matched with no entry of the vCPU traced: $said"
# The exit before was another guest's vCPU 2 (another thread): the
# command may run several guests, and this one's first entry faulted.
said=$(trace $k 0xffffffff81109679 $k 0x80000b0e 0x00000010 |
	sed '1s/csan-vcpu2-120/csan-vcpu2-99/' | $awk "$fetch_fault_rule")
[ -z "$said" ] || fail "the rule took another guest's exit for this vCPU's: $said"

# emuhost, told on the control port, whatever the command's status.
require_emulated_host
qemu_stand_in <<EOB
{
	echo started
	echo "lost-fetch vcpu 2 rip $k entered at $k after an exit at 0xffffffff81109679 intr_info 0x80000b0e error_code 0x00000010"
	echo "exit 3"
} >"\$ctl.out"
EOB
QEMU_SYSTEM=$work/qemu "$EMUHOST" --timeout 60 -- true </dev/null >"$out" 2>"$err"
rc=$?
expect_rc 125
expect_err "^emuhost: the emulated host lost a nested guest's state while running 'true': a vCPU triple-faulted on a page fault fetching the first instruction its kvm entered it at, on the page it had been running on until its exit before \\(vcpu 2 rip $k .*; the command's status 3 is not its own\\)\$"
expect_err '^emuhost: that is the emulated host.s fault, not the guest.s \(docs/harness.md\): run again$'
# And the tests' retry rule takes it for the emulated host's own words.
nested_state_lost >/dev/null || fail "nested_state_lost does not take emuhost's words for the fault"
exit 0
