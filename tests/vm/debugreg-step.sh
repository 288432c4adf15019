# debugreg-step.sh: CPU 0 single-steps itself (RFLAGS.TF) through 300
# bursts and counts each #DB in its own handler, while CPU 1 is watched
# at every access (csan.skip_watch=1).  Every burst must take the same
# number of single-step traps, each with DR6.BS, and none without.  In hw
# mode csan-vmm holds the debug registers much of the time, so the
# guest's traps come out as debug exits that are not csan-vmm's: it must
# say so and hand each back as exactly one #DB with the guest's DR6.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm --append=csan.skip_watch=1 --scenario=debugreg-step --timeout=120
expect_rc 0
expect_out '^csan-result: scenario=debugreg-step status=pass bursts=300 traps=[1-9][0-9]* per_burst_min=([0-9]+) per_burst_max=\1 stray=0$'
if [ "$watch_mode" = hw ]; then
	expect_err '^csan-vmm: vCPU 0: debug exit that is not a csan-vmm watch \(single step, DR6 0x[0-9a-f]+, PC 0x[0-9a-f]+\): handed to the guest as #DB'
	expect_err '^csan-vmm: hardware watches: [1-9][0-9]* armed, .* [1-9][0-9]* debug exits not ours;'
else
	! grep -q 'debug exit that is not a csan-vmm watch' "$err" || fail "a debug exit in soft mode"
fi
