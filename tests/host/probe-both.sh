# probe-both.sh: --probe (--host=auto) reports this machine's KVM and the
# emulated host, then where hw mode runs; the emulated host always has it.
. "$top_srcdir/tests/lib.sh"
require_emulated_host
hw_here=no
"$VMM" --probe --host=kvm >/dev/null 2>&1 && hw_here=yes
run_host --probe
expect_rc 0
expect_out '^emulated host: KVM API version: 12$'
expect_out '^emulated host: data watchpoints: fire '
expect_out '^emulated host: hardware-watchpoint mode: available$'
if [ $hw_here = yes ]; then
	expect_out "^--host=auto: --watch=hw and --compare run on this machine's KVM$"
else
	expect_out '^--host=auto: --watch=hw and --compare run in the emulated host$'
fi
run_host --probe --host=emulated
expect_rc 0
expect_no_out '^KVM API version'
expect_out '^emulated host: hardware-watchpoint mode: available$'
