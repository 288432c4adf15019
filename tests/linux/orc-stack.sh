# orc-stack.sh: on a kernel built with CONFIG_UNWINDER_ORC (the second
# test kernel), the stack csan-vmm unwinds on the host for a
# debug-register hit (src/watch/orc.c, with the module's ORC entries)
# matches, frame by frame, the stack the kernel itself prints for the same
# code path: the race test's uninstrumented writer calls dump_stack() once
# from race_test_uninstr_write, whose store the host then catches.  The
# first frame is the same function (the PCs differ: the call and the
# store); every caller is the same return address, so the same
# func+0xoff/0xsize.
. "$top_srcdir/tests/lib.sh"
LINUX_TIMEOUT=${LINUX_TIMEOUT:-600}
. "$top_srcdir/tests/linux/lib.sh"
. "$top_srcdir/tests/linux/module-lib.sh"
require_module_kernel
grep -q '^CONFIG_UNWINDER_ORC=y' "${workload_vmlinux%/vmlinux}/config" ||
	fail "the second test kernel is not built with CONFIG_UNWINDER_ORC"

run_module_test --watch=hw --modules="$workload_modules"

# The kernel's: the reliable frames (no "? ") of the Call Trace after the
# race test's line, from race_test_uninstr_write on, as "func+off/size".
tr -d '\r' <"$out" | sed 's/^\(\[[^]]*\] \)*//' | awk '
	/csan-race-test: the writer.s own stack:/ { on = 1; next }
	on && /<\/TASK>/ { exit }
	on && /^ [^?<][^ ]*\+0x/ { f = $1; if (f ~ /^race_test_uninstr_write\+/) seen = 1; if (seen) print f }
' >"$work/kernel.stack"
# The host's: the writer's side of the hw report, its function frames
# (not the [inline] ones), up to the blank line.
awk '
	/^BUG: KCSAN: data-race in race_test_instr_read \/ race_test_uninstr_write$/ { r = 1; next }
	r && /^write to 0x[0-9a-f]+ of 8 bytes by task [0-9]+ on cpu 1:$/ { on = 1; next }
	on && /^$/ { exit }
	on && !/\[inline\]/ { print $1 }
' "$err" >"$work/host.stack"

[ -s "$work/kernel.stack" ] || fail "no dump_stack from race_test_uninstr_write on the console"
[ -s "$work/host.stack" ] || fail "no host stack of the uninstrumented writer in a report"
# Frame 0: the same function; then every frame the same.
k0=$(sed -n '1s/+.*//p' "$work/kernel.stack")
h0=$(sed -n '1s/+.*//p' "$work/host.stack")
[ "$k0" = "$h0" ] || fail "first frame: kernel $k0, host $h0"
# Callers as function+offset: the /size after them is each side's idea of
# the function's length (kallsyms counts the padding to the next symbol).
tail -n +2 "$work/kernel.stack" | sed 's,/0x[0-9a-f]*$,,' >"$work/kernel.callers"
tail -n +2 "$work/host.stack" | sed 's,/0x[0-9a-f]*$,,' >"$work/host.callers"
cmp -s "$work/kernel.callers" "$work/host.callers" || {
	echo "kernel's stack:"; cat "$work/kernel.stack"
	echo "host's stack:"; cat "$work/host.stack"
	fail "the host's stack does not match the kernel's frame by frame"
}
[ "$(wc -l <"$work/host.stack")" -ge 3 ] || fail "a stack of fewer than 3 frames proves little"
exit 0
