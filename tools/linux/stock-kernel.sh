#!/bin/sh
# stock-kernel.sh: Debian's own cloud kernel, as a user who cannot rebuild
# it has it, and the project's race test built as a module against its
# headers without any sanitizer; fetched once per machine, and the
# directory holding them printed.
#
#   tools/linux/stock-kernel.sh [-q] [--release=RELEASE]
#
# The kernel is the one the emulated host boots (its harness cache names
# the package), else the release linux-image-cloud-amd64 depends on, else
# --release.  In the printed directory:
#   vmlinuz            the package's bzImage, as /boot has it
#   vmlinux            its debug package's vmlinux (linux-image-RELEASE-dbg):
#                      DWARF and symbols, for --vmlinux
#   csan_race_test.ko  race-test/ and race-test-module/ built out of tree
#                      against linux-headers-RELEASE (plain gcc, no KCSAN)
#   src/               its sources, as its DWARF names them
#   release            RELEASE and the package version
# Nothing is installed: apt-get download and dpkg-deb -x, as
# build-vmlinux.sh does.  The debug package is a 280 MB download; only its
# vmlinux is kept.  Cached under $CSAN_LINUX_CACHE, else
# /var/cache/csan-vmm/linux, else ~/.cache/csan-vmm/linux, as
# stock-RELEASE-VERSION-HASH (HASH: the race test's files and this recipe).
# Exit status: 0 fetched or cached, 77 cannot here (no Debian archive, no
# build tools; the message says what to do), 1 a step failed, 2 bad
# arguments.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
racetest=$here/race-test
racemod=$here/race-test-module
quiet=0 release=
# Bump when what this script makes changes.
RECIPE=5

while [ $# -gt 0 ]; do
	case $1 in
	--release=*) release=${1#*=}; shift ;;
	-q) quiet=1; shift ;;
	-h|--help) sed -n '2,26s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "stock-kernel.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done

say() { [ "$quiet" = 1 ] || echo "stock-kernel.sh: $*" >&2; }
die() { echo "stock-kernel.sh: $*" >&2; exit 1; }
cannot() { echo "stock-kernel.sh: $*" >&2; exit 77; }

# --- which kernel ------------------------------------------------------------
# The harness writes "linux-image-RELEASE VERSION" beside the kernel it boots.
if [ -z "$release" ]; then
	for c in ${CSAN_HARNESS_CACHE:-} /var/cache/csan-vmm/harness \
		"${HOME:-/nonexistent}/.cache/csan-vmm/harness"; do
		if [ -r "$c/current/package" ]; then
			release=$(sed -n 's/^linux-image-\([^ ]*\) .*/\1/p' "$c/current/package")
			break
		fi
	done
fi
if [ -z "$release" ]; then
	release=$(apt-cache depends linux-image-cloud-amd64 2>/dev/null |
		sed -n 's/^ *Depends: linux-image-\([0-9].*-cloud-amd64\)$/\1/p' | head -n 1)
fi
[ -n "$release" ] ||
	cannot "apt knows no linux-image-cloud-amd64; run 'apt-get update' (Debian 12's archive is needed)"
case $release in
*[!A-Za-z0-9.+-]*) echo "stock-kernel.sh: --release=$release: not a kernel release" >&2; exit 2 ;;
esac
image=linux-image-$release
version=$(apt-cache show "$image" 2>/dev/null | sed -n 's/^Version: //p' | head -n 1)
[ -n "$version" ] ||
	cannot "apt knows no $image; run 'apt-get update' (Debian 12's archive is needed)"

hash=$( (echo "recipe $RECIPE"
	for f in "$racetest"/* "$racemod"/*; do echo "${f#"$here"/}"; cat "$f"; done) |
	sha256sum | cut -c1-12)
key=stock-$release-$version-$hash

# --- the cache -----------------------------------------------------------------
cache=
for c in ${CSAN_LINUX_CACHE:-} /var/cache/csan-vmm/linux \
	"${HOME:-/nonexistent}/.cache/csan-vmm/linux"; do
	if [ -r "$c/$key/csan_race_test.ko" ]; then echo "$c/$key"; exit 0; fi
done
for c in ${CSAN_LINUX_CACHE:-} /var/cache/csan-vmm/linux \
	"${HOME:-/nonexistent}/.cache/csan-vmm/linux"; do
	if mkdir -p "$c" 2>/dev/null && [ -w "$c" ]; then cache=$c; break; fi
done
[ -n "$cache" ] || cannot "no writable cache directory; set CSAN_LINUX_CACHE"
out=$cache/$key

# One fetch at a time per cache (two tests may ask at once).
exec 9>>"$cache/stock.lock" || cannot "cannot create $cache/stock.lock; set CSAN_LINUX_CACHE"
flock -w 1800 9 || die "waited half an hour for another fetch holding $cache/stock.lock"
if [ -r "$out/csan_race_test.ko" ]; then echo "$out"; exit 0; fi

missing=
for t in gcc make xz objcopy; do
	command -v "$t" >/dev/null 2>&1 || missing="$missing $t"
done
[ -z "$missing" ] ||
	cannot "missing build tools:$missing; run 'tools/install-deps.sh' as root"

work=$(mktemp -d "$cache/.stock.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/x" "$work/out"

fetch() { # PACKAGE...: apt-get download, into $work
	say "downloading $* with apt-get download"
	(cd "$work" && timeout 1200 apt-get download "$@") >"$work/apt.log" 2>&1 || {
		tail -n 3 "$work/apt.log" >&2
		cannot "apt-get download $* failed; run 'apt-get update' (Debian's archive is needed)"
	}
}

# --- the kernel and its debug vmlinux --------------------------------------------
fetch "$image=$version" "$image-dbg=$version"
dpkg-deb -x "$work/${image}_${version}_amd64.deb" "$work/x" ||
	die "dpkg-deb -x of $image failed"
cp "$work/x/boot/vmlinuz-$release" "$work/out/vmlinuz" ||
	die "$image has no /boot/vmlinuz-$release"
say "unpacking the debug vmlinux of $image-dbg (a minute)"
dpkg-deb --fsys-tarfile "$work/${image}-dbg_${version}_amd64.deb" |
	tar -x -C "$work/x" "./usr/lib/debug/boot/vmlinux-$release" ||
	die "$image-dbg has no ./usr/lib/debug/boot/vmlinux-$release"
# Its .rela.* sections (the relocations a relocatable kernel keeps for
# KASLR, 310 of its 590 MB) serve no reader of an executable's DWARF.
objcopy --remove-section='.rela.*' "$work/x/usr/lib/debug/boot/vmlinux-$release" \
	"$work/out/vmlinux" || die "objcopy of the debug vmlinux failed"
rm -f "$work"/*-dbg_*.deb

# --- the race test, out of tree against the package's headers ----------------
# linux-headers-RELEASE includes its -common half by absolute path
# (/usr/src/...); unpacked elsewhere, that one line points at the copy.
kbuild=$(apt-cache show "linux-headers-$release=$version" 2>/dev/null |
	sed -n 's/^Depends:.*\(linux-kbuild-[0-9.]*\).*/\1/p' | head -n 1)
common=$(apt-cache show "linux-headers-$release=$version" 2>/dev/null |
	sed -n 's/^Depends:.*\(linux-headers-[0-9.-]*-common\).*/\1/p' | head -n 1)
[ -n "$kbuild" ] && [ -n "$common" ] ||
	die "cannot tell linux-headers-$release's -common and kbuild packages from apt-cache show"
fetch "linux-headers-$release=$version" "$common=$version" "$kbuild=$version"
for d in "$work/linux-headers-${release}_${version}_amd64.deb" \
	"$work/${common}_${version}_all.deb" "$work/${kbuild}_${version}_amd64.deb"; do
	dpkg-deb -x "$d" "$work/x" || die "dpkg-deb -x $d failed"
done
hdr=$work/x/usr/src/linux-headers-$release
sed -i "s|/usr/src/$common|$work/x/usr/src/$common|" "$hdr/Makefile"
mkdir "$work/mod"
cp "$racetest"/*.c "$racetest"/*.h "$racemod"/*.c "$work/mod/"
# race-test-module/Kbuild names kernel/csan-race-test/ in the source tree;
# out of tree, every file is in the module's own directory.
cat >"$work/mod/Kbuild" <<'EOF'
ccflags-y += -I$(src)
obj-m += csan_race_test.o
csan_race_test-y := csan_race_test_module.o csan_race_test_uninstr_module.o
EOF
say "building csan_race_test.ko against linux-headers-$release"
# Its DWARF names its sources where they are kept, beside it in src/
# (the build's directory goes away), and the headers where the package
# puts them (/usr/src/...).
make -C "$hdr" M="$work/mod" \
	KCFLAGS="-fdebug-prefix-map=$work/mod=$out/src -fdebug-prefix-map=$work/x/=/" \
	modules >"$work/mod/build.log" 2>&1 || {
	tail -n 20 "$work/mod/build.log" >&2
	die "building csan_race_test.ko against linux-headers-$release failed"
}
cp "$work/mod/csan_race_test.ko" "$work/out/"
mkdir "$work/out/src"
cp "$work/mod"/*.c "$work/mod"/*.h "$work/mod/Kbuild" "$work/out/src/"
echo "$release $version" >"$work/out/release"
mv "$work/out" "$out" || die "cannot move the result to $out"
# The same kernel fetched for an older race test or recipe is not needed
# any more: 280 MB each.
for old in "$cache/stock-$release-$version"-*; do
	[ "$old" = "$out" ] || [ ! -d "$old" ] || rm -rf "$old"
done
say "Debian's $image $version and its race module are in $out"
echo "$out"
