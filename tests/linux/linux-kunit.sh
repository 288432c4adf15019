# linux-kunit.sh: Linux's own KCSAN KUnit suite (kernel/kcsan/kcsan_test.c)
# on 4 vCPUs passes at least as many cases as under QEMU TCG on the same
# kernel (tests/linux/qemu-tcg-kunit.txt), fails none, and the run ends by
# the reboot kunit_shutdown asks for.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/linux/lib.sh"
require_linux
qemu_passed=$(sed -n 's/.*# kcsan: pass:\([0-9]*\) .*/\1/p' \
	"$top_srcdir/tests/linux/qemu-tcg-kunit.txt" | head -n 1)
[ -n "$qemu_passed" ] || fail "no '# kcsan: pass:N' line in qemu-tcg-kunit.txt"
run_linux -a kunit_shutdown=reboot
expect_out 'kcsan: selftest: 4/4 tests passed'
expect_err 'linux kunit: kcsan: [0-9]+ passed, 0 failed, [0-9]+ skipped$'
passed=$(sed -n 's/^linux kunit: kcsan: \([0-9]*\) passed.*/\1/p' "$err")
[ "$passed" -ge "$qemu_passed" ] ||
	fail "csan-vmm passed $passed KUnit cases, QEMU TCG $qemu_passed"
expect_err 'csan-vmm: Linux rebooted'
# 0 when no report reached the report log, 1 when some did: KCSAN's own
# reports become csan-vmm reports through the console parser.
if grep -q 'race report' "$err"; then expect_rc 1; else expect_rc 0; fi
