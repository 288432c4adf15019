# report-flood.sh: a guest sends a million race reports as fast as it can
# (two vCPUs).  Every one is counted: the summary and the JSON totals say
# 1000000; rate limiting holds (a handful printed, not a million); the
# VMM's peak memory stays bounded (VmHWM, sampled while it runs).
. "$top_srcdir/tests/lib.sh"
require_vm_env
run_helper report-flood 1000000
expect_out '^rc=1$'
expect_out '^report-flood: sent 1000000 reports$'
expect_out '^csan-vmm: race summary: 1 distinct race in 1000000 reports, [0-9]+ printed, '
expect_out '^csan-vmm: guest finished, 1000000 race reports$'
expect_out '"type":"summary".*"count":1000000,'
expect_out '^\{"type":"totals","reports":1000000,"distinct":1,'
printed=$(sed -n 's/^json_reports=//p' "$out")
[ -n "$printed" ] && [ "$printed" -ge 1 ] && [ "$printed" -le 200 ] ||
	fail "rate limiting: $printed report objects in the JSON, want 1 to 200 (one per 3 s)"
# Guest RAM (64 MiB, mapped, partly touched) plus libdw: a leak of even
# 100 bytes a report would add 100 MB.
hwm=$(sed -n 's/^hwm_kb=//p' "$out")
echo "peak resident memory: ${hwm} kB"
[ -n "$hwm" ] && [ "$hwm" -gt 0 ] && [ "$hwm" -lt 160000 ] ||
	fail "peak resident memory ${hwm} kB, want under 160000 kB"
