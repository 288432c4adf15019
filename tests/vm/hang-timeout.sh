# hang-timeout.sh: a guest that never finishes is stopped by --timeout with
# status 4 (told apart from a crash's 3), a message naming the timeout,
# and the closing summary line saying so.  How long it let the guest run
# is held against the guest's own clock, not csan-vmm's: the hang
# scenario says each whole second of its TSC time, and the last it said
# must be within a second or two of the timeout (it starts counting at
# boot, a little after csan-vmm's clock), and against this test's clock.
. "$top_srcdir/tests/lib.sh"
require_vm_env
timeout_s=6
start=$(date +%s)
run_vmm --scenario=hang --timeout=$timeout_s
took=$(($(date +%s) - start))
expect_rc 4
expect_err "^csan-vmm: guest still running after --timeout=$timeout_s s\$"
expect_err '^csan-vmm: exit status 4 \(timeout\): 0 race reports; workload: no exit status reported; KUnit: none$'
last=$(sed -n 's/^hang: \([0-9]*\) s of guest time$/\1/p' "$out" | tail -n 1)
[ -n "$last" ] || fail "the guest never said a second of its time"
[ "$last" -ge $((timeout_s - 2)) ] && [ "$last" -le "$timeout_s" ] ||
	fail "--timeout=$timeout_s let the guest run $last whole seconds of its own time"
[ "$took" -ge "$timeout_s" ] || fail "--timeout=$timeout_s ended the run after $took s of this test's clock"
