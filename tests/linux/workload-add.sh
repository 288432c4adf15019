# workload-add.sh: --add puts host files in the guest: a static and a
# dynamically linked executable (tests/workload/hello.c; the dynamic one
# brings its loader and libc), a directory with its modes, under a
# GUESTPATH and under /BASENAME by default, beside CMD's cwd (/).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/linux/lib.sh"
. "$top_srcdir/tests/linux/workload-lib.sh"
require_workload_kernel

static="$top_builddir/tests/workload/hello-static"
dyn="$top_builddir/tests/workload/hello-dyn"
[ -x "$static" ] && [ -x "$dyn" ] || fail "tests/workload/hello-static and hello-dyn are not built"
file "$dyn" | grep -q 'dynamically linked' || fail "$dyn is not dynamically linked"
mkdir -p "$work/tree/sub"
echo 'tree-file-content' >"$work/tree/sub/data.txt"
chmod 0640 "$work/tree/sub/data.txt"

cmd='./hello-static; /opt/bin/hello-dyn one; echo dyn=$?; cat tree/sub/data.txt; stat -c %a tree/sub/data.txt'
run_workload --add="$static" --add="$dyn:/opt/bin/hello-dyn" --add="$work/tree" --run="$cmd"
expect_out 'csan-hello from \./hello-static, 0 arguments'
expect_out 'csan-hello from /opt/bin/hello-dyn, 1 argument([^s]|$)'
expect_out '^dyn=7'
expect_out '^tree-file-content'
expect_out '^640'
expect_err '^csan-vmm: initramfs for --run: [0-9.]+ MiB \(3 --add\) built in [0-9]+ ms$'
expect_workload 0 "$cmd"
exit 0
