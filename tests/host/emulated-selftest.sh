# emulated-selftest.sh: --host=emulated boots the bundled guest's selftest
# inside the emulated host, from this machine, as a user runs it: the
# console streams back, the exit status is the inner run's own (0), and
# the inner csan-vmm used kvm-amd (its banner, its counters).
. "$top_srcdir/tests/lib.sh"
require_emulated_host
run_host --host=emulated --cpus=2 --timeout=120
expect_rc 0
expect_out '^csan-result: scenario=selftest status=pass cpus=2 '
expect_err '^csan-vmm: booting /csan/guest/csan-guest \(csan guest\) on 2 vCPUs, 64 MiB, watch mode soft, '
expect_err '^csan-vmm: guest finished, no races reported$'
# An explicit --host never explains itself.
! grep -q 'running in the emulated host' "$err" || fail "--host=emulated printed the auto line"
