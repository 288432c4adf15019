# serial-flood.sh: a guest writes the UART without end and without a
# newline.  --timeout ends it (status 4, the timeout named), and the
# console output keeps arriving in line-buffer-sized pieces.
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_vmm --cpus=1 --scenario=serial-flood --timeout=5
expect_rc 4
expect_err '^csan-vmm: guest still running after --timeout=5 s$'
expect_out '^serial-flood: writing COM1 without end$'
# Lines longer than the VMM's line buffer go out in pieces as it fills, so
# the output keeps coming although no newline ever does.
pieces=$(grep -o 'serial-flood:0123456789abcdefghijklmnopqrstuvwxyz:' "$out" | wc -l)
echo "flood output: $pieces patterns of 51 bytes in 5 s"
[ "$pieces" -ge 20 ] || fail "only $pieces flood patterns on stdout, want at least 20"
