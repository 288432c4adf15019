# abi-refused.sh: images with a wrong csan ABI note are refused before
# anything runs, with status 2 and the versions found; one without the note
# is refused so when --guest=csan insists (with auto it is a Linux kernel).
# And the note is the image's promise, whoever runs it: --guest=linux boots
# the bundled guest as a plain PVH kernel, and its runtime's hypercalls
# (console, exit) are still served.
. "$top_srcdir/tests/lib.sh"
require_vm_env
carry "$top_builddir/src/guest/csan-guest-badabi"
run_vmm "$carried"
expect_rc 2
expect_err 'ABI version 999'
expect_err 'speaks ABI [0-9]+'
carry "$top_builddir/src/guest/csan-guest-noabi"
run_vmm --guest=csan "$carried"
expect_rc 2
expect_err 'no csan-vmm ABI note'

run_vmm --guest=linux --timeout=120
expect_rc 0
expect_err 'booting .*\(linux guest\)'
expect_out '^csan-result: scenario=selftest status=pass'
