# stock-sample.sh: --watch=sample on a kernel nobody rebuilt (issue 26):
# Debian's own cloud kernel, the package the emulated host boots, with its
# debug package's vmlinux for symbols, and the project's race test built
# as a module against that package's headers with plain gcc, no
# sanitizer (tools/linux/stock-kernel.sh fetches and builds them once per
# machine).  The module is loaded by --run='insmod ...' and runs its
# racy-plain case: race_test_plain_read() on CPU 0 and
# race_test_plain_write() on CPU 1 race plainly on one u64, in module
# text.  --sample-only keeps the draw to those two functions.  What must
# hold:
#   - the module loads, runs the case to its end, and the workload's
#     status is 0;
#   - sampling armed code breakpoints in the module, they were hit;
#   - a two-sided report names the reader on cpu 0 and the writer on
#     cpu 1, each in its function of the module, symbolized from the
#     module's own DWARF (file and line), one side seen by the sampling
#     breakpoint and the other by a debug register;
#   - no sampling report names anything but those two functions.
. "$top_srcdir/tests/lib.sh"
LINUX_TIMEOUT=${LINUX_TIMEOUT:-600}
. "$top_srcdir/tests/linux/lib.sh"
. "$top_srcdir/tests/linux/workload-lib.sh"
require_emulated_host
stock=$("$top_srcdir/tools/linux/stock-kernel.sh" -q 2>"$work/stock.err") || {
	st=$?
	[ "$st" = 77 ] && skip "Debian's stock kernel cannot be fetched here: $(tail -n 1 "$work/stock.err")"
	fail "tools/linux/stock-kernel.sh failed: $(tail -n 3 "$work/stock.err")"
}
kernel=$stock/vmlinuz
wl_tmp="$work/tmpdir"
mkdir -p "$wl_tmp"
read -r release version <"$stock/release"
echo "Debian's $release ($version), from $stock"

cmd='insmod /csan_race_test.ko csan_race_test=racy-plain csan_race_test_ms=6000'
run_workload --watch=sample --seed=26 --vmlinux="$stock/vmlinux" --modules="$stock" \
	--sample-only=race_test_plain_read,race_test_plain_write \
	--add="$stock/csan_race_test.ko:/csan_race_test.ko" --run="$cmd"
grep -Fqx "csan-vmm: workload: '$cmd' exited with status 0" "$err" ||
	fail "no line saying the workload exited with status 0: $(grep '^csan-vmm: workload' "$err")"
expect_rc 1
expect_err "^csan-vmm: booting .* on 2 vCPUs, .* watch mode sample, "
tr -d '\r' <"$out" | grep -q '^\[ *[0-9.]*\] csan-race-test: done$' ||
	fail "the race test module did not finish: $(tr -d '\r' <"$out" | grep 'csan-race-test' | tail -n 3)"

line='^csan-vmm: sampling: \([0-9]*\) sites in the table, \([0-9]*\) code breakpoints armed, \([0-9]*\) hits; .*; \([0-9]*\) data watches, \([0-9]*\) trapped another access .*; \([0-9]*\) reports$'
counts=$(sed -n "s/$line/\\1 \\2 \\3 \\4 \\5 \\6/p" "$err")
[ -n "$counts" ] || fail "no sampling counters line at exit"
set -- $counts
echo "sampling: $1 sites, $2 armed, $3 hits, $4 watches, $5 trapped, $6 reports"
[ "$2" -gt 0 ] && [ "$3" -gt 0 ] || fail "sampling did not run in the module: $2 breakpoints armed, $3 hits"
[ "$5" -gt 0 ] || fail "no data watch caught the other side in $4 watches"

# Each sampling report on its own; a module frame is
# "func+0xN/0xM [csan_race_test] path/csan_race_test.c:LINE".
expect_sample_plain_race '\[csan_race_test\] .*csan_race_test\.c:[0-9]+$' ' in the module'

grep -E '^csan-vmm: (sampling|code breakpoints|hardware watches):' "$err"
show_sample_report
exit 0
