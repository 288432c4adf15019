# hw-sizes.sh: the real guest runtime watches an access of every size
# 1..4096 at every alignment 0..63 (csan.skip_watch=0 watches every
# access; no plain write is taken as marked), and in hw mode asks the host to back each watch with debug
# registers.  The host must never refuse one (a refusal ends the guest
# with exit 3): wide and unaligned ranges get as many registers as are
# free, and the rest is counted as not hardware-watched.  Two hypercalls
# per watch make this a long run in the emulated host (about 2 minutes).
. "$top_srcdir/tests/lib.sh"
require_vm_env
VMM_WALL_LIMIT=900
run_vmm --cpus=1 --scenario=hw-sizes --timeout=800 \
	--append='csan.skip_watch=0 csan.udelay_task=0 csan.assume_plain_writes_atomic=0'
expect_rc 0
! grep -q 'bad hypercall' "$err" || fail "the host refused a hypercall"
expect_out '^csan-result: scenario=hw-sizes status=pass mode='"$watch_mode"' accesses=262144 setup_watchpoints=262144 '
if [ "$watch_mode" = hw ]; then
	expect_out ' hw_armed=262144 hw_partial=[1-9][0-9]*'
	# The host's totals include the scenario's few other watches.
	expect_err '^csan-vmm: hardware watches: 26214[4-9] armed, 0 without a free debug register, [1-9][0-9]* partly \([1-9][0-9]* bytes not hardware-watched\), '
fi
