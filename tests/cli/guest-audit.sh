# guest-audit.sh: the built guest keeps to what the instruction emulators
# run (HOST-FACTS.md: general registers only; no POPCNT, XSAVE/XRSTOR,
# INT3, CLAC/STAC, x87 or SSE), and only scenario code is instrumented.
. "$top_srcdir/tests/lib.sh"

guestdir="$top_builddir/src/guest"
for tool in objdump nm; do
	command -v "$tool" >/dev/null || skip "$tool not found (install binutils)"
done
[ -f "$GUEST" ] || fail "$GUEST is not built"

# Code that is not 64-bit: the PVH and AP entries run in 32-bit protected
# mode, the AP trampoline in real mode.  Each is decoded in its own mode.
addr() { nm "$GUEST" | awk -v s="$1" '$3 == s { print "0x" $1 }'; }
disasm() {
	objdump -d --no-show-raw-insn "$@" "$GUEST" |
		awk -F'\t' 'NF >= 2 { print $2 }'
}
{
	disasm -M x86-64 --start-address="$(addr start64)" --stop-address="$(addr trampoline_start)"
	disasm -M x86-64 --start-address="$(addr trampoline_end)"
	disasm -M i386 --start-address="$(addr pvh_start32)" --stop-address="$(addr start64)"
	disasm -M i8086 --start-address="$(addr trampoline_start)" \
		--stop-address="$(addr trampoline_end)"
} >"$work/insns"
[ -s "$work/insns" ] || fail "objdump found no code in $GUEST"

# x87 mnemonics all begin with f; no general-register one does.
forbidden='^(popcnt|xsave[a-z0-9]*|xrstor[a-z0-9]*|fxsave[a-z0-9]*|fxrstor[a-z0-9]*|int3|clac|stac|f[a-z0-9]+|[lms]fence|ldmxcsr|stmxcsr|emms|movnt[a-z]*)( |$)'
if grep -E "$forbidden" "$work/insns" >"$work/bad" ||
	grep -E '%(x|y|z)mm[0-9]|%mm[0-7]' "$work/insns" >>"$work/bad"; then
	fail "forbidden instructions in $GUEST: $(sort -u "$work/bad" | head -5 | tr '\n' ';')"
fi

# Only the scenario archive may call the sanitizer runtime.
for lib in libguest-kernel.a libguest-runtime.a libguest-uninstr.a; do
	[ -f "$guestdir/$lib" ] || fail "$guestdir/$lib is not built"
	if nm -u "$guestdir/$lib" | grep -q ' __tsan_'; then
		fail "$lib references __tsan_*: it must never be instrumented"
	fi
done
nm -u "$guestdir/libguest-scenarios-tsan.a" | grep -q ' __tsan_read' ||
	fail "libguest-scenarios-tsan.a calls no __tsan_read*: scenarios are not instrumented"
if nm -u "$guestdir/libguest-scenarios-tsan.a" | grep -Eq ' (memcpy|memset|memmove)$'; then
	fail "instrumented scenarios still call plain memcpy/memset/memmove"
fi
echo "PASS: $(wc -l <"$work/insns") instructions checked; only scenarios instrumented"
