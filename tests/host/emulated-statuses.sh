# emulated-statuses.sh: through --host=emulated the exit status is the
# inner csan-vmm's own (3 for a guest panic, 4 for --timeout), a SIGTERM
# is passed on so the inner run prints its summary and exits 130, and a
# failure of the emulated host itself is told apart from the guest's
# (status 2, saying so, in a closing summary line too).
. "$top_srcdir/tests/lib.sh"
require_emulated_host

run_host --host=emulated --scenario=panic --timeout=120
expect_rc 3
expect_err 'panic scenario: deliberate panic, as asked'

run_host --host=emulated --scenario=hang --timeout=3
expect_rc 4
expect_err '^csan-vmm: guest still running after --timeout=3 s$'

# SIGTERM once the guest is up: the inner run must end its own way.
# Emptied first: the run above left a "CPUs online" line in $out, and the
# wait below must not find it before the new run's shell truncates the
# file (seen once in a fresh-clone CI run: the SIGTERM reached the new
# run before csan-vmm started, status 143).
: >"$out"
: >"$err"
"$VMM" --host=emulated --scenario=hang --timeout=200 </dev/null >"$out" 2>"$err" &
pid=$!
. "$top_srcdir/tests/helpers/wait-for.sh"
wait_for_line "$out" "^csan-guest: 2 CPUs online" $pid || { kill -KILL $pid; fail "the inner run never started"; }
kill -TERM $pid
wait $pid
rc=$?
expect_rc 130
expect_err '^csan-vmm: counters: '
expect_err '^csan-vmm: stopped by '

# A QEMU that says it is 10.0.2 and then fails: the harness's status 125.
cat >"$work/qemu" <<'EOQ'
#!/bin/sh
case "$1" in --version) echo "QEMU emulator version 10.0.2"; exit 0 ;; esac
echo "qemu: simulated failure" >&2
exit 1
EOQ
chmod +x "$work/qemu"
QEMU_SYSTEM=$work/qemu run_host --host=emulated --timeout=30
expect_rc 2
expect_err 'the emulated host itself failed \(QEMU or its kernel, see above\); this says nothing about the guest'
expect_err '^csan-vmm: exit status 2 \(error\): the emulated host failed under the run; nothing is known of the guest$'
