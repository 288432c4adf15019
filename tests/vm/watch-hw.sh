# watch-hw.sh: --watch=hw where the host can and cannot do it.  Directly on
# PVM, whose KVM never delivers guest data breakpoints, csan-vmm refuses
# before booting: status 2, with the probe's finding and what to do.  In
# the emulated host (kvm-amd) the guest boots in hw mode and the runtime
# gets debug registers for its watches, and a vCPU that hits a watch
# traps on it once.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm --watch=hw --scenario=counter-nolock --timeout=120
if on_pvm; then
	expect_rc 2
	expect_err '^csan-vmm: --watch=hw: data watchpoints do not fire .*kvm_pvm.*; what to do: run on a host with VMX/SVM KVM, or in the emulated host \(--host=auto or --host=emulated\), or use --watch=soft$'
	expect_no_out 'csan-guest'
else
	expect_rc 1
	expect_err '^csan-vmm: booting .* watch mode hw, '
	expect_err 'watch mode: hw\)$'
	expect_err '^csan-vmm: counters: .* hw_armed=[1-9][0-9]* '
	expect_err '^csan-vmm: hardware watches: [1-9][0-9]* armed, '
	expect_hw_hits_bounded
	allow_counter_nolock
	expect_reports 1
	expect_report_counts
fi
