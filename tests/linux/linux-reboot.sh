# linux-reboot.sh: Linux's reboot ends the run with status 0 (1 if
# Linux's KCSAN reported a race on the way), by each way
# it knows: the FADT's reset register (its default, port 0xcf9), the
# keyboard controller (reboot=k) and a triple fault (reboot=t).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/linux/lib.sh"
require_linux
for way in "a:reset control register (port 0xcf9)" \
	"k:keyboard controller reset (port 0x64, 0xfe)" "t:triple fault"; do
	run_linux -a "kunit.enable=0 kunit_shutdown=reboot reboot=${way%%:*}"
	expect_status_by_races
	expect_out 'reboot: Restarting system'
	grep -Fq "csan-vmm: Linux rebooted (${way#*:})" "$err" ||
		fail "reboot=${way%%:*}: no 'Linux rebooted (${way#*:})' on stderr"
done
