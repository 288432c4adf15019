# linux-poweroff.sh: Linux's power-off (ACPI S5 through the FADT's PM1a
# control register) ends the run with status 0 (1 if Linux's KCSAN
# reported a race on the way).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/linux/lib.sh"
require_linux
run_linux -a "kunit.enable=0 kunit_shutdown=poweroff"
expect_status_by_races
expect_out 'reboot: Power down'
expect_err 'csan-vmm: Linux powered off \(ACPI S5'
