# kernel-refused.sh: a file csan-vmm cannot boot is refused before anything
# starts, in one line that names the file and says what it is instead;
# nothing is left behind.  No VM is needed: the checks come first.
. "$top_srcdir/tests/lib.sh"

# A bzImage header as `make` writes it (protocol 2.15), then a dummy kernel
# of 8 KiB: setup_sects 3, syssize, boot flag, HdrS, LOADED_HIGH,
# XLF_KERNEL_64, init_size 2 MiB, pref_address 16 MiB.
make_bzimage() {
	python3 - "$1" "${2:-1}" <<'PY'
import struct, sys
path, xlf = sys.argv[1], int(sys.argv[2])
d = bytearray(4 * 512 + 0x2000)
d[0x1f1] = 3
struct.pack_into('<I', d, 0x1f4, 0x2000 // 16)
struct.pack_into('<H', d, 0x1fe, 0xaa55)
d[0x200:0x202] = b'\xeb\x6a'
struct.pack_into('<IH', d, 0x202, 0x53726448, 0x020f)
d[0x211] = 1
struct.pack_into('<I', d, 0x22c, 0x7fffffff)
struct.pack_into('<H', d, 0x236, xlf)
struct.pack_into('<I', d, 0x238, 2047)
struct.pack_into('<Q', d, 0x258, 0x1000000)
struct.pack_into('<I', d, 0x260, 0x200000)
open(path, 'wb').write(d)
PY
}

# refused FILE PATTERN: status 2, one line naming FILE and matching PATTERN,
# no guest console, and nothing new in $TMPDIR.
refused() {
	before=$(ls -A "$tmp" | sort)
	"$VMM" --host=kvm "$1" </dev/null >"$out" 2>"$err"
	rc=$?
	expect_rc 2
	expect_err "^csan-vmm: $1: $2"
	[ "$(wc -l <"$err")" = 1 ] || fail "more than one line for $1"
	expect_no_out
	[ "$(ls -A "$tmp" | sort)" = "$before" ] || fail "$1 left files in $tmp"
}

tmp=$work/tmp
mkdir "$tmp"
export TMPDIR=$tmp
make_bzimage "$work/bzImage" || fail "cannot make a test bzImage"

printf 'not a kernel at all\n' >"$work/notes.txt"
refused "$work/notes.txt" "is not a kernel csan-vmm can boot: neither an ELF vmlinux nor a bzImage"

head -c 3000 "$work/bzImage" >"$work/truncated"
refused "$work/truncated" ".*a truncated bzImage"

make_bzimage "$work/bzImage32" 0
refused "$work/bzImage32" "is a 32-bit kernel .*build with CONFIG_64BIT=y"

# An arm64 Image: its magic "ARM\x64" at 0x38.
python3 -c 'import sys; d = bytearray(4096); d[0x38:0x3c] = b"ARM\x64"; open(sys.argv[1], "wb").write(d)' \
	"$work/Image" || fail "cannot make a test arm64 Image"
refused "$work/Image" "is an arm64 kernel Image, not an x86-64 kernel"

gzip -c "$work/bzImage" >"$work/bzImage.gz"
refused "$work/bzImage.gz" "is gzip-compressed data \(unpack it first\)"

refused "$work/missing" "cannot open: No such file or directory"

# --vmlinux that is no ELF, and --vmlinux beside an ELF kernel.
"$VMM" --host=kvm --vmlinux="$work/notes.txt" "$work/bzImage" </dev/null >"$out" 2>"$err"
rc=$?
expect_rc 2
expect_err "^csan-vmm: --vmlinux: $work/notes.txt is not an ELF file"
"$VMM" --host=kvm --vmlinux="$GUEST" "$GUEST" </dev/null >"$out" 2>"$err"
rc=$?
expect_rc 2
expect_err "^csan-vmm: --vmlinux: $GUEST is an ELF kernel, which carries its own symbols"
exit 0
