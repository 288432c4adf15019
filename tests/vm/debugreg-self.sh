# debugreg-self.sh: the guest arms DR0 on its own variable, writes it 100
# times and takes each #DB in its own handler.  csan-vmm must leave the
# debug registers to the guest: on real KVM every write traps, exactly
# once; PVM never fires guest data breakpoints (HOST-FACTS.md), so there
# the count is 0, and the run must still end cleanly.
#  soft: one vCPU; the registers are the guest's alone.
#  hw:   two vCPUs; CPU 1 is watched all along, so csan-vmm keeps loading
#        its own debug registers on CPU 0 while the guest's DR0 is set.
#        The guest's breakpoint must survive that: 100 hits, some of them
#        arriving as debug exits that csan-vmm hands back to the guest.
. "$top_srcdir/tests/lib.sh"
require_vm_env
if [ "$watch_mode" = hw ]; then
	run_vmm --cpus=2 --scenario=debugreg-self --timeout=120
else
	run_vmm --cpus=1 --scenario=debugreg-self --timeout=120
fi
expect_rc 0
if on_pvm; then
	expect_out '^csan-result: scenario=debugreg-self status=pass writes=100 hits=0 stray=0$'
else
	expect_out '^csan-result: scenario=debugreg-self status=pass writes=100 hits=100 stray=0$'
fi
if [ "$watch_mode" = hw ]; then
	expect_err '^csan-vmm: hardware watches: [1-9][0-9]* armed, .* [1-9][0-9]* debug exits not ours;'
	expect_err '^csan-vmm: vCPU 0: debug exit that is not a csan-vmm watch \(breakpoint slot 0 \(not ours\), DR6 '
	expect_watch_mode
fi
