# emuhost-lost-state.sh: the harness's own evidence of its known fault
# (QEMU's TCG loses a nested guest's state, which then exits at an address
# of the emulated host's kvm modules: docs/harness.md) ends the run with
# the harness's status 125 and its own words, naming the exit its kvm
# traced, whatever the command's status was.  The fault cannot be made to
# happen, so the same watch is pointed at the csan guest's own code
# (CSAN_HARNESS_LOST_STATE_RANGE: the guest's .text), where every exit of
# a booted guest is; a run without it is left to the command (every other
# emulated-host test).
. "$top_srcdir/tests/lib.sh"
require_emulated_host
text=$(readelf -SW "$GUEST" | sed -n 's/.* \.text  *PROGBITS  *\([0-9a-f]*\) [0-9a-f]* \([0-9a-f]*\) .*/\1 \2/p')
[ -n "$text" ] || fail "no .text section in $GUEST"
low=$((0x${text% *})) size=$((0x${text#* }))
range=$(printf '0x%x 0x%x' "$low" $((low + size)))
CSAN_HARNESS_LOST_STATE_RANGE=$range "$EMUHOST" --timeout 300 --file "$VMM" \
	--file "$GUEST:/csan/src/guest/csan-guest" -- \
	csan-vmm --host=kvm --cpus=2 --scenario=selftest --timeout=60 >"$out" 2>"$err"
rc=$?
expect_rc 125
# The guest ran (its own lines came through) and its exits were traced.
expect_out '^csan-guest: 2 CPUs online'
expect_err "^emuhost: the emulated host lost a nested guest's state while running 'csan-vmm .*': its kvm saw the guest exit at an address inside its own kvm modules, where the guest has no code \\(vcpu [0-9]+ reason [a-z_]+ rip 0x[0-9a-f]+(; the command's status [0-9]+ is not its own)?\\)\$"
expect_err "^emuhost: that is the emulated host's fault, not the guest's \\(docs/harness.md\\): run again\$"
rip=$(sed -n "s/^emuhost: the emulated host lost .* rip \\(0x[0-9a-f]*\\).*/\\1/p" "$err")
[ $((rip)) -ge "$low" ] && [ $((rip)) -lt $((low + size)) ] ||
	fail "the traced exit's RIP $rip is outside the watched range $range"
# The tests' own retry takes these words for the emulated host's fault.
nested_state_lost >/dev/null || fail "nested_state_lost does not take the harness's lost-state words"
echo "lost-state watch on $range: $(grep -m 1 'lost a nested' "$err" | sed 's/.*(//')"
