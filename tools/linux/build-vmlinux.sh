#!/bin/sh
# build-vmlinux.sh: build csan-vmm's Linux test kernel (Debian's
# linux-source-6.1, tinyconfig + kcsan.config, with the race test of
# race-test/ built in) once per machine and print the path of its vmlinux.
#
#   tools/linux/build-vmlinux.sh [--fragment FILE] [--print-key] [-q]
#
# The kernel is cached by source version and a hash of the fragment and
# race-test/ under $CSAN_LINUX_CACHE, else /var/cache/csan-vmm/linux, else
# ~/.cache/csan-vmm/linux:  <cache>/<key>/vmlinux (+ config, build.log), the
# unpacked source under <cache>/src/<version>/ (kept: the vmlinux's DWARF
# names files there) and the build tree under <cache>/build-<version>/
# (kept: another fragment rebuilds only what changed).  A second run
# prints the cached path at once.  race-test/ is copied into the source
# as kernel/csan-race-test/, built in only when this script builds (the
# one line it adds to kernel/Makefile is off for any other build there);
# the copy there is the last build's, so a cached vmlinux of other
# race-test/ files names lines of files that may since have changed.
# Exit status: 0 built or cached, 77 cannot build here (missing tools or no
# Debian archive; the message says what to do), 1 the build failed.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
fragment=$here/kcsan.config
racetest=$here/race-test
quiet=0 print_key=0
PKG=linux-source-6.1
# Bump when the recipe below changes in a way that changes the vmlinux.
RECIPE=2

while [ $# -gt 0 ]; do
	case $1 in
	--fragment) fragment=$2; shift 2 ;;
	--fragment=*) fragment=${1#*=}; shift ;;
	--print-key) print_key=1; shift ;;
	-q) quiet=1; shift ;;
	-h|--help) sed -n '2,20s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "build-vmlinux.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done

say() { [ "$quiet" = 1 ] || echo "build-vmlinux.sh: $*" >&2; }
die() { echo "build-vmlinux.sh: $*" >&2; exit 1; }
cannot() { echo "build-vmlinux.sh: $*" >&2; exit 77; }

[ -r "$fragment" ] || die "cannot read the config fragment $fragment"
[ -r "$racetest/Kbuild" ] || die "cannot read the race test's $racetest/Kbuild"

# --- the key: Debian source version + fragment + race test + recipe ------
version=$(dpkg-query -W -f '${Version}' "$PKG" 2>/dev/null || true)
if [ -z "$version" ]; then
	version=$(apt-cache policy "$PKG" 2>/dev/null | sed -n 's/^ *Candidate: *//p')
	[ -n "$version" ] && [ "$version" != "(none)" ] ||
		cannot "apt knows no $PKG; run 'apt-get update' (Debian 12's archive is needed)"
fi
hash=$( (cat "$fragment"; echo "recipe $RECIPE"
	for f in "$racetest"/*; do echo "race-test/${f##*/}"; cat "$f"; done) |
	sha256sum | cut -c1-12)
key=$version-$hash
if [ "$print_key" = 1 ]; then echo "$key"; exit 0; fi

# --- the cache -------------------------------------------------------------
pick_cache() {
	for c in ${CSAN_LINUX_CACHE:-} /var/cache/csan-vmm/linux \
		"${HOME:-/nonexistent}/.cache/csan-vmm/linux"; do
		if [ -r "$c/$key/vmlinux" ]; then cache=$c; return 0; fi
	done
	for c in ${CSAN_LINUX_CACHE:-} /var/cache/csan-vmm/linux \
		"${HOME:-/nonexistent}/.cache/csan-vmm/linux"; do
		if mkdir -p "$c" 2>/dev/null && [ -w "$c" ]; then cache=$c; return 0; fi
	done
	cannot "no writable cache directory; set CSAN_LINUX_CACHE"
}
pick_cache
out=$cache/$key
if [ -r "$out/vmlinux" ]; then echo "$out/vmlinux"; exit 0; fi

# One build at a time per cache (the suite may ask from two tests at once).
exec 9>>"$cache/lock" || cannot "cannot create $cache/lock; set CSAN_LINUX_CACHE"
if ! flock -n 9; then
	say "another build holds $cache/lock; waiting for it"
	flock -w 3600 9 || die "waited an hour for another build holding $cache/lock"
fi
if [ -r "$out/vmlinux" ]; then echo "$out/vmlinux"; exit 0; fi

# --- tools -----------------------------------------------------------------
missing=
for t in gcc make flex bison bc perl xz; do
	command -v "$t" >/dev/null 2>&1 || missing="$missing $t"
done
[ -r /usr/include/gelf.h ] || missing="$missing libelf-dev"
[ -r /usr/include/openssl/ssl.h ] || missing="$missing libssl-dev"
if [ -n "$missing" ]; then
	cannot "missing build tools:$missing; run 'tools/install-deps.sh' as root (it installs flex, bison, bc, libssl-dev)"
fi

# --- source: apt-get download, unpack (never installed) -------------------
src=$cache/src/$version
if [ ! -r "$src/Makefile" ]; then
	work=$(mktemp -d "$cache/.src.XXXXXX")
	say "downloading $PKG $version with apt-get download"
	(cd "$work" && timeout 900 apt-get download "$PKG=$version") >"$work/apt.log" 2>&1 ||
		{ cat "$work/apt.log" >&2; rm -rf "$work"
		  cannot "apt-get download $PKG=$version failed; run 'apt-get update' (Debian's archive is needed)"; }
	dpkg-deb -x "$work"/*.deb "$work/x" || die "dpkg-deb -x failed in $work"
	tarball=$(ls "$work"/x/usr/src/linux-source-*.tar.xz 2>/dev/null | head -n 1)
	[ -n "$tarball" ] || die "no linux-source-*.tar.xz in the $PKG package"
	say "unpacking $(basename "$tarball")"
	mkdir "$work/tree"
	tar -xJf "$tarball" -C "$work/tree" || die "cannot unpack $tarball"
	mkdir -p "$cache/src"
	rm -rf "$src"
	mv "$work"/tree/linux-source-* "$src"
	rm -rf "$work"
fi

# --- the race test: race-test/ as kernel/csan-race-test/ -----------------
# Files copied only when they differ (an unchanged one keeps its time, so
# Kbuild does not recompile it), files no longer in race-test/ removed.
# The line in kernel/Makefile builds the directory only when the make
# command line sets CSAN_VMM_RACE_TEST=y, as kmake below does: a build of
# this source by anything else stays the plain 6.1 kernel.
rt=$src/kernel/csan-race-test
rt_line='obj-$(CSAN_VMM_RACE_TEST) += csan-race-test/'
mkdir -p "$rt" || die "cannot create $rt"
for f in "$racetest"/*; do
	cmp -s "$f" "$rt/${f##*/}" || cp "$f" "$rt/" || die "cannot copy $f to $rt"
done
for f in "$rt"/*; do
	[ -e "$racetest/${f##*/}" ] || rm -f "$f"
done
if ! grep -qxF "$rt_line" "$src/kernel/Makefile"; then
	printf '\n# csan-vmm: its race test (tools/linux/race-test), with CSAN_VMM_RACE_TEST=y\n%s\n' \
		"$rt_line" >>"$src/kernel/Makefile" || die "cannot add the race test to $src/kernel/Makefile"
fi

# --- configure and build out of tree --------------------------------------
# One build directory per source version, kept: a changed fragment then
# rebuilds only what its options touch (Kbuild tracks each CONFIG_ a file
# uses), not the whole kernel.
build=$cache/build-$version
mkdir -p "$build"
rm -f "$build/vmlinux"
jobs=$(nproc 2>/dev/null || echo 2)
kmake() { nice make -C "$src" O="$build" ARCH=x86_64 CSAN_VMM_RACE_TEST=y "$@"; }
say "configuring: tinyconfig + $(basename "$fragment") in $build"
kmake tinyconfig >"$build/config.log" 2>&1 || { tail -n 30 "$build/config.log" >&2; die "make tinyconfig failed"; }
(cd "$build" && "$src/scripts/kconfig/merge_config.sh" -m .config "$fragment") \
	>>"$build/config.log" 2>&1 || { tail -n 30 "$build/config.log" >&2; die "merge_config.sh failed"; }
kmake olddefconfig >>"$build/config.log" 2>&1 || { tail -n 30 "$build/config.log" >&2; die "make olddefconfig failed"; }
# Every option the fragment asks for must have survived Kconfig.
bad=
for line in $(grep -E '^CONFIG_[A-Z0-9_]+=' "$fragment"); do
	grep -qx "$line" "$build/.config" || bad="$bad $line"
done
[ -z "$bad" ] || die "Kconfig dropped:$bad (a dependency is missing from $fragment; see $build/config.log)"

say "building vmlinux with $jobs jobs (about 6 minutes on 2 cores); log: $build/build.log"
start=$(date +%s)
# Progress: one line per 250 compiled files, the log keeps everything.
if ! kmake -j"$jobs" vmlinux 2>&1 | tee "$build/build.log" |
	awk -v q="$quiet" '/^  [A-Z]/ { n++; if (!q && n % 250 == 0) { printf "build-vmlinux.sh: %5d steps, at %s\n", n, $2 > "/dev/stderr"; fflush("/dev/stderr") } }'; then
	:
fi
if [ ! -r "$build/vmlinux" ]; then
	grep -E 'error|Error' "$build/build.log" | head -n 20 >&2
	die "make vmlinux failed; see $build/build.log"
fi
grep -q ' race_test_init$' "$build/System.map" ||
	die "the race test is not in vmlinux (no race_test_init in $build/System.map)"
say "built in $(($(date +%s) - start)) s"

tmp=$cache/.out-$key
rm -rf "$tmp"
mkdir -p "$tmp"
cp "$build/vmlinux" "$tmp/vmlinux"
cp "$build/.config" "$tmp/config"
cp "$build/build.log" "$tmp/build.log"
echo "$PKG $version" >"$tmp/source"
echo "$src" >"$tmp/source-dir"
rm -rf "$out"
mv "$tmp" "$out"
echo "$out/vmlinux"
