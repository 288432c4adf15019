# emuhost-status-fallback.sh: the command's status reaches emuhost even
# when the control port's "exit N" line does not (seen once under heavy
# load: the command's whole output arrived, its status did not, and the
# run was called a failure of the emulated host).  The init script also
# writes the status through the kernel's console, and emuhost takes it
# from there.  A QEMU stand-in plays the emulated host whose control line
# was lost: it writes only the console line, as the kernel would.
. "$top_srcdir/tests/lib.sh"
require_emulated_host
# The init script's "started" does arrive on the control port.
qemu_stand_in <<'EOB'
echo started >"$ctl.out"
printf '[    2.718281] emuhost-status: exit 5\r\n[    2.800000] reboot: Power down\r\n' >"$console"
EOB
QEMU_SYSTEM=$work/qemu "$EMUHOST" --timeout 60 -- true </dev/null >"$out" 2>"$err"
rc=$?
expect_rc 5
! grep -q 'stopped while running' "$err" || fail "the status on the console was not taken"

# No status anywhere: still the emulated host's failure, as before.
sed -i 's/emuhost-status: exit 5/some other line/' "$work/qemu"
QEMU_SYSTEM=$work/qemu "$EMUHOST" --timeout 60 -- true </dev/null >"$out" 2>"$err"
rc=$?
expect_rc 125
expect_err "^emuhost: the emulated host stopped while running 'true' \\(QEMU status 0\\)\$"
