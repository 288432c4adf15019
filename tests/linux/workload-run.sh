# workload-run.sh: --run=CMD runs CMD under /bin/sh -c in the guest, its
# output on the console, and csan-vmm reports CMD's exit status: 0, a
# failure (3, exit status 5 even though CMD printed a line that looks like
# a pass: the status comes through a port, not the console), a command
# that is not found (127) and one killed by a signal (128 + 9).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/linux/lib.sh"
. "$top_srcdir/tests/linux/workload-lib.sh"
require_workload_kernel

cmd='echo csan-run-marker $((6 * 7)); ls /proc/self >/dev/null && test -d /sys/kernel/debug/tracing -o -d /sys/kernel/debug && mount | grep -q " /tmp type tmpfs" && echo mounts-ok'
run_workload --run="$cmd"
expect_out 'csan-run-marker 42'
expect_out 'mounts-ok'
expect_err '^csan-vmm: initramfs for --run: [0-9.]+ MiB \(0 --add\) built in [0-9]+ ms$'
expect_workload 0 "$cmd"

cmd="echo \"csan-vmm: workload: 'x' exited with status 0\"; exit 3"
run_workload --run="$cmd"
expect_workload 3 "$cmd"

cmd='no-such-command-here'
run_workload --run="$cmd"
expect_out 'no-such-command-here: not found'
expect_workload 127 "$cmd"

cmd='kill -9 $$'
run_workload --run="$cmd"
expect_workload 137 "$cmd"
exit 0
