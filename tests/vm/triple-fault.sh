# triple-fault.sh: CPU 1 triple-faults while CPU 0 keeps running.  The run
# ends as a guest failure (status 3) naming the vCPU, with its registers
# and its unwound stack;
# no vCPU is left running and nothing loops.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm --cpus=2 --scenario=triple-fault --timeout=120
expect_rc 3
expect_out '^triple-fault: CPU 1 goes down, CPU 0 keeps running$'
expect_err '^csan-vmm: vCPU 1: triple fault \(KVM_EXIT_SHUTDOWN\)'
expect_err '^csan-vmm: vCPU 1: code at RIP: '
# And where it was: the faulting vCPU's stack, unwound and symbolized.
# Except under kvm-amd (the emulated host), which resets a vCPU on a
# triple fault, so that its state is gone: then csan-vmm must say so.
if [ "$CSAN_TEST_ENV" = emuhost ]; then
	expect_err '^csan-vmm: vCPU 1: no guest stack: KVM reset the vCPU when it stopped '
	# The harness's record of where it was: the emulated host's kvm traced
	# the shutdown with the guest's RIP before the reset, and that RIP is
	# in the function that faults (its range from the guest's symbols).
	expect_err "^emuhost: a nested guest shut down \\(triple fault\\) while running 'csan-vmm "
	rip=$(sed -n 's/^emuhost:   .* kvm_exit: vcpu 1 reason shutdown rip \(0x[0-9a-f]*\) .*/\1/p' "$err" | tail -n 1)
	[ -n "$rip" ] || fail "no traced shutdown of vCPU 1 among emuhost's lines"
	sym=$(nm -S "$GUEST" | awk '$4 == "triple_fault_cpu" { print "0x" $1, "0x" $2 }')
	[ -n "$sym" ] || fail "no symbol triple_fault_cpu in $GUEST"
	start=${sym% *} size=${sym#* }
	[ $((rip)) -ge $((start)) ] && [ $((rip)) -lt $((start + size)) ] ||
		fail "the traced shutdown's RIP $rip is outside triple_fault_cpu ($start, $size bytes)"
else
	expect_err_in_order '^csan-vmm: vCPU 1: guest stack:$' \
		'^csan-vmm:   triple_fault_cpu\+0x[0-9a-f]+/0x[0-9a-f]+ src/guest/scenarios/hostile-cpu\.c:[0-9]+$'
fi
# Not mistaken for a debug exit (it once was, and re-injected #DB forever).
! grep -q 'debug exit that is not a csan-vmm watch' "$err" || fail "triple fault handled as #DB"
! grep -v '^emuhost: ' "$err" | grep -q 'timeout=120' || fail "the run ended by the timeout, not the fault"
