# debugreg-self.sh: the guest arms DR0 on its own variable, writes it 100
# times and takes each #DB in its own handler.  csan-vmm (soft mode) must
# leave the debug registers to the guest: on real KVM every write traps,
# exactly once; PVM never fires guest data breakpoints (HOST-FACTS.md), so
# there the count is 0, and the run must still end cleanly.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm --cpus=1 --scenario=debugreg-self --timeout=120
expect_rc 0
if on_pvm; then
	expect_out '^csan-result: scenario=debugreg-self status=pass writes=100 hits=0 stray=0$'
else
	expect_out '^csan-result: scenario=debugreg-self status=pass writes=100 hits=100 stray=0$'
fi
