# control-socket.sh: --control=PATH and --send: read and change a knob in
# the running guest's control block, counters, watch mode, errors for a bad
# value and an unknown command, and quit: summary printed, status 0 (no
# races), socket file removed.  A stale socket (its csan-vmm killed) is
# reused; one still served is refused to a second csan-vmm.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_helper control-session
expect_out '^stale socket left$'
expect_out '^socket exists$'
expect_out '^second rc=2$'
expect_out "^csan-vmm: --control: '.*/ctl.sock' is in use by another process"
# The default comes from the guest (knobs.c), read out of guest RAM.
expect_out_in_order() {
	in_order "$out" "$@" || fail "stdout lacks, in order: $*"
}
expect_out_in_order '^step get-default rc=0$' '^skip_watch=4000$' \
	'^step set rc=0$' '^skip_watch=100$' '^skip_watch=100$' \
	'^step set-range rc=1$' "error: enabled: '2' is out of range: give 0 to 1" \
	'^step unknown rc=1$' "error: unknown command 'frobnicate'" \
	'^step stats rc=0$' '^csan-vmm: counters: used_watchpoints=[0-9]+ setup_watchpoints=' \
	'^csan-vmm: races so far: 0 reports, 0 distinct$' \
	'^step watch-show rc=0$' '^watch=soft$' \
	'^step watch-soft rc=0$' '^watch=soft$' '^watch=soft$' \
	'^step quit rc=0$' '^vmm rc=0$' '^socket removed$' \
	'^step after-exit rc=2$' 'cannot connect to'
# hw mode: accepted where guest data breakpoints fire (the emulated host),
# refused with the probe's finding on PVM.
if on_pvm; then
	expect_out_in_order '^step watch-hw rc=1$' \
		'^.*hardware watchpoints are unavailable on this host: data watchpoints do not fire .+$'
else
	expect_out_in_order '^step watch-hw rc=0$' '^watch=hw$'
fi
expect_err_in_order '^csan-vmm: counters: ' '^csan-vmm: stopped on request \(quit\), 0 race reports$'
