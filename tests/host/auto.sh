# auto.sh: --host=auto (the default) runs on this machine's /dev/kvm when
# it can do what is asked, else in the emulated host, saying so in one
# line.  Checked against what this machine has: the same command line
# must go to the emulated host exactly when /dev/kvm is missing (any run)
# or cannot deliver data watchpoints (--watch=hw, --compare; PVM).
# --compare then shows both columns, with the race found in each.
. "$top_srcdir/tests/lib.sh"
require_emulated_host
auto_line='running in the emulated host \(QEMU TCG with an AMD CPU and real kvm-amd: guest code runs at about 400 M instructions/s, 10-25x slower than on KVM, and start-up takes 10-20 s more\); --host=kvm to refuse$'

have_kvm=no hw_here=no
[ -e /dev/kvm ] && have_kvm=yes
"$VMM" --probe --host=kvm >/dev/null 2>&1 && hw_here=yes

run_host --cpus=2 --timeout=120
expect_rc 0
expect_out '^csan-result: scenario=selftest status=pass cpus=2 '
if [ $have_kvm = no ]; then
	expect_err "^csan-vmm: /dev/kvm does not exist: .*: $auto_line"
else
	! grep -q 'running in the emulated host' "$err" || fail "a plain run left /dev/kvm here"
fi

run_host --compare --scenario=counter-nolock --timeout=120
expect_rc 1
if [ $hw_here = yes ]; then
	! grep -q 'running in the emulated host' "$err" || fail "--compare left a KVM that has hw mode"
elif [ $have_kvm = yes ]; then
	expect_err "^csan-vmm: --compare: data watchpoints do not fire .*: $auto_line"
else
	expect_err "^csan-vmm: /dev/kvm does not exist: .*: $auto_line"
fi
# Both columns: soft count, time, seen by; then hw's; then the title.
expect_out '^  counter-nolock +[1-9][0-9]* +[0-9.]+s +soft-watchpoint +[1-9][0-9]* +[0-9.]+s +[a-z+-]+ +data-race in counter_nolock_inc / counter_nolock_inc$'
# A mode may also see the race one-sided (the write checked for a
# watchpoint just before the watcher armed one: tests/README.md), a row
# of its own; every report must have one of the race's shapes.
expect_out 'found by both 1, soft only [01], hw only [01];'
allow_counter_nolock
expect_reports 2
