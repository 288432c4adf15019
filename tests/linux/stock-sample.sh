# stock-sample.sh: --watch=sample on a kernel nobody rebuilt (issue 26):
# Debian's own cloud kernel, the package the emulated host boots, with its
# debug package's vmlinux for symbols, and the project's race test built
# as a module against that package's headers with plain gcc, no
# sanitizer (tools/linux/stock-kernel.sh fetches and builds them once per
# machine).  The module is loaded by --run='insmod ...' and runs its
# racy-plain case: race_test_plain_read() on CPU 0 and
# race_test_plain_write() on CPU 1 race plainly on one u64, in module
# text.  --sample-only keeps the draw to those two functions and to
# nr_iowait_cpu, a vmlinux function the workload does not race in whose
# `add __per_cpu_offset(,%rdi,8),%rax` holds an absolute image address,
# which the kernel relocates at boot under KASLR.  KASLR is
# on (--kaslr), as Debian boots it: the kernel places itself at random,
# and after the module the workload prints where /proc/kallsyms has
# _text.  What must hold:
#   - the module loads, runs the case to its end, and the workload's
#     status is 0;
#   - the KASLR offset csan-vmm says it found is the distance of the
#     guest's own _text from the vmlinux's;
#   - sampling armed code breakpoints in the module, they were hit;
#   - a two-sided report names the reader on cpu 0 and the writer on
#     cpu 1, each in its function of the module, symbolized from the
#     module's own DWARF (file and line), one side seen by the sampling
#     breakpoint and the other by a debug register;
#   - no sampling report names anything but those two functions;
#   - nr_iowait_cpu's sites are in the draw, and none is retired as
#     rewritten: a relocated image address is still the site;
#   - the stacks go on past the module into the moved vmlinux, symbolized
#     there: kthread in kernel/kthread.c, as the guest runs it.  (The
#     module's sites are found in guest memory, so sampling itself needs
#     no offset there; the vmlinux's frames do.)
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

cmd='insmod /csan_race_test.ko csan_race_test=racy-plain csan_race_test_ms=6000 && grep " T _text$" /proc/kallsyms'
run_workload --watch=sample --kaslr --seed=26 --vmlinux="$stock/vmlinux" --modules="$stock" \
	--sample-only=race_test_plain_read,race_test_plain_write,nr_iowait_cpu \
	--add="$stock/csan_race_test.ko:/csan_race_test.ko" --run="$cmd"
grep -Fqx "csan-vmm: workload: '$cmd' exited with status 0" "$err" ||
	fail "no line saying the workload exited with status 0: $(grep '^csan-vmm: workload' "$err")"
expect_rc 1
expect_err "^csan-vmm: booting .* on 2 vCPUs, .* watch mode sample, "
grep '^csan-vmm: booting ' "$err" | grep -q nokaslr && fail "--kaslr: the command line still has nokaslr"

# The offset: the guest's _text against the vmlinux's.
guest_text=$(tr -d '\r' <"$out" | sed -n 's/^\([0-9a-f]\{16\}\) T _text$/\1/p' | head -n 1)
[ -n "$guest_text" ] || fail "the workload printed no _text line from /proc/kallsyms"
link_text=$(readelf -s -W "$stock/vmlinux" | awk '$8 == "_text" { print $2; exit }')
[ -n "$link_text" ] || fail "no _text symbol in $stock/vmlinux"
# Both in the kernel's top 2 GiB (upper half ffffffff): the low halves
# subtract in the shell's arithmetic, which 64-bit addresses overflow.
case $guest_text$link_text in
ffffffff????????ffffffff????????) ;;
*) fail "_text not in the kernel's top 2 GiB: guest 0x$guest_text, vmlinux 0x$link_text" ;;
esac
offset=$(( 0x${guest_text#ffffffff} - 0x${link_text#ffffffff} ))
echo "KASLR: _text at 0x$guest_text in the guest, 0x$link_text in the vmlinux: offset $offset"
if [ "$offset" = 0 ]; then
	# KASLR may draw the link address itself: then no offset, or +0.
	! grep '^csan-vmm: sampling: the kernel runs ' "$err" | grep -qv ' runs +0 bytes ' ||
		fail "KASLR drew the link address, but csan-vmm says: $(grep '^csan-vmm: sampling: the kernel runs ' "$err")"
else
	expect_err "^csan-vmm: sampling: the kernel runs \\+$offset bytes from its link address \\(KASLR; "
fi
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
# nr_iowait_cpu's sites: drawn at every round, never retired.
expect_err "^csan-vmm: sampling: [1-9][0-9]* sites of [0-9]+ instructions in [^ ]*vmlinux, only in "
expect_err ' 0 sites retired as rewritten, 0 hits on rewritten bytes '
expect_sample_plain_race '\[csan_race_test\] .*csan_race_test\.c:[0-9]+$' ' in the module'
expect_err '^ kthread\+0x[0-9a-f]+/0x[0-9a-f]+ kernel/kthread\.c:[0-9]+$'

grep -E '^csan-vmm: (sampling|code breakpoints|hardware watches):' "$err"
show_sample_report
exit 0
