#!/bin/sh
# build-vmlinux.sh: build one of csan-vmm's Linux test kernels (Debian's
# linux-source-6.1 on tinyconfig plus a fragment) once per machine and print
# the path of its vmlinux.
#
#   tools/linux/build-vmlinux.sh [--config=NAME] [--fragment FILE]
#                                [--print-key] [-q]
#
# --config=kcsan (the default): kcsan.config, a PVH vmlinux with the race
# test of race-test/ built in (csan_race_test= on the command line runs it).
# --config=workload: workload.config, the kernel a user brings in small: a
# bzImage with the ORC unwinder, modules (the race test as
# csan_race_test.ko from race-test-module/, KCSAN's KUnit suite as
# kcsan_test.ko after torture.ko), initramfs and virtio-mmio/virtio-blk
# support.  Beside its vmlinux: bzImage, System.map, config,
# modules/lib/modules/RELEASE/ (modules_install) and build-dir, the path of
# the kept build tree (arch/x86/boot/bzImage and vmlinux, as a user's).
#
# A kernel is cached by source version and a hash of its fragment and the
# race test's files under $CSAN_LINUX_CACHE, else /var/cache/csan-vmm/linux,
# else ~/.cache/csan-vmm/linux:  <cache>/<key>/vmlinux (+ config,
# build.log), the unpacked source under <cache>/src/<version>/ (kept: the
# DWARF names files there) and one build tree per config, kept so another
# fragment rebuilds only what changed and switching configs rebuilds
# nothing: <cache>/build-<version>/ (kcsan), <cache>/build-NAME-<version>/.
# A second run prints the cached path at once.  race-test/ is copied into
# the source as kernel/csan-race-test/ (and race-test-module/ as
# kernel/csan-race-test-module/), built only when this script builds (the
# lines it adds to kernel/Makefile are off for any other build there); the
# copies are the last build's, so a cached kernel of other race-test files
# names lines of files that may since have changed.
# Exit status: 0 built or cached, 77 cannot build here (missing tools or no
# Debian archive; the message says what to do), 1 the build failed, 2 bad
# arguments.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
config=kcsan fragment=
racetest=$here/race-test
racemod=$here/race-test-module
quiet=0 print_key=0
PKG=linux-source-6.1
# Bump when the recipe below changes in a way that changes the vmlinux.
RECIPE=2
# The same for the workload kernel's part of the recipe alone (its key
# has it; the kcsan key does not, so the kcsan cache stays valid).
WORKLOAD_RECIPE=1

while [ $# -gt 0 ]; do
	case $1 in
	--config) config=$2; shift 2 ;;
	--config=*) config=${1#*=}; shift ;;
	--fragment) fragment=$2; shift 2 ;;
	--fragment=*) fragment=${1#*=}; shift ;;
	--print-key) print_key=1; shift ;;
	-q) quiet=1; shift ;;
	-h|--help) sed -n '2,34s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "build-vmlinux.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done
case $config in
kcsan|workload) ;;
*) echo "build-vmlinux.sh: --config=$config: no such kernel (kcsan or workload)" >&2; exit 2 ;;
esac
[ -n "$fragment" ] || fragment=$here/$config.config

say() { [ "$quiet" = 1 ] || echo "build-vmlinux.sh: $*" >&2; }
die() { echo "build-vmlinux.sh: $*" >&2; exit 1; }
cannot() { echo "build-vmlinux.sh: $*" >&2; exit 77; }

[ -r "$fragment" ] || die "cannot read the config fragment $fragment"
[ -r "$racetest/Kbuild" ] || die "cannot read the race test's $racetest/Kbuild"
[ "$config" = kcsan ] || [ -r "$racemod/Kbuild" ] ||
	die "cannot read the race test module's $racemod/Kbuild"

# --- the key: Debian source version + fragment + race test + recipe ------
# The kcsan key is computed as it was before --config existed: its cached
# kernels stay valid.
version=$(dpkg-query -W -f '${Version}' "$PKG" 2>/dev/null || true)
if [ -z "$version" ]; then
	version=$(apt-cache policy "$PKG" 2>/dev/null | sed -n 's/^ *Candidate: *//p')
	[ -n "$version" ] && [ "$version" != "(none)" ] ||
		cannot "apt knows no $PKG; run 'apt-get update' (Debian 12's archive is needed)"
fi
hash=$( (cat "$fragment"; echo "recipe $RECIPE"
	for f in "$racetest"/*; do echo "race-test/${f##*/}"; cat "$f"; done
	if [ "$config" != kcsan ]; then
		echo "config $config, recipe $WORKLOAD_RECIPE"
		for f in "$racemod"/*; do echo "race-test-module/${f##*/}"; cat "$f"; done
	fi) |
	sha256sum | cut -c1-12)
if [ "$config" = kcsan ]; then
	key=$version-$hash
else
	key=$version-$config-$hash
fi
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

# One build at a time per cache (the suite may ask from two tests at once;
# both configs share the source tree).
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
# depmod (kmod) writes modules.dep, which modprobe needs to load torture.ko
# before kcsan_test.ko; without it modules_install only warns, and insmod in
# the right order still works.  Debian keeps it in /usr/sbin or /sbin.
depmod=$(PATH=$PATH:/usr/sbin:/sbin command -v depmod 2>/dev/null || true)
if [ "$config" != kcsan ] && [ -z "$depmod" ]; then
	say "no depmod (package kmod): the modules get no modules.dep; 'tools/install-deps.sh' installs it"
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
# copy_dir FROM TO: files copied only when they differ (an unchanged one
# keeps its time, so Kbuild does not recompile it), files no longer in
# FROM removed.
copy_dir() {
	mkdir -p "$2" || die "cannot create $2"
	for f in "$1"/*; do
		cmp -s "$f" "$2/${f##*/}" || cp "$f" "$2/" || die "cannot copy $f to $2"
	done
	for f in "$2"/*; do
		[ -e "$1/${f##*/}" ] || rm -f "$f"
	done
}
# add_kbuild_line LINE: LINE at the end of kernel/Makefile, once.
add_kbuild_line() {
	grep -qxF "$1" "$src/kernel/Makefile" && return 0
	printf '\n# csan-vmm: its race test (tools/linux/race-test), with %s\n%s\n' \
		"$2" "$1" >>"$src/kernel/Makefile" ||
		die "cannot add the race test to $src/kernel/Makefile"
}
# The lines in kernel/Makefile build the directories only when the make
# command line sets CSAN_VMM_RACE_TEST=y (kcsan) or
# CSAN_VMM_RACE_TEST_MODULE=m (workload), as kmake below does: a build of
# this source by anything else stays the plain 6.1 kernel.  Both configs
# copy race-test/: the module's sources include its files.
copy_dir "$racetest" "$src/kernel/csan-race-test"
add_kbuild_line 'obj-$(CSAN_VMM_RACE_TEST) += csan-race-test/' 'CSAN_VMM_RACE_TEST=y'
if [ "$config" != kcsan ]; then
	copy_dir "$racemod" "$src/kernel/csan-race-test-module"
	add_kbuild_line 'obj-$(CSAN_VMM_RACE_TEST_MODULE) += csan-race-test-module/' \
		'CSAN_VMM_RACE_TEST_MODULE=m, as a module'
fi

# --- configure and build out of tree --------------------------------------
# One build directory per config and source version, kept: a changed
# fragment then rebuilds only what its options touch (Kbuild tracks each
# CONFIG_ a file uses), not the whole kernel.
if [ "$config" = kcsan ]; then
	build=$cache/build-$version
	racevar=CSAN_VMM_RACE_TEST=y
	targets=vmlinux
else
	build=$cache/build-$config-$version
	racevar=CSAN_VMM_RACE_TEST_MODULE=m
	targets="vmlinux bzImage modules"
fi
mkdir -p "$build"
rm -f "$build/vmlinux" "$build/arch/x86/boot/bzImage"
jobs=$(nproc 2>/dev/null || echo 2)
kmake() { nice make -C "$src" O="$build" ARCH=x86_64 "$racevar" "$@"; }
say "configuring: tinyconfig + $(basename "$fragment") in $build"
kmake tinyconfig >"$build/config.log" 2>&1 || { tail -n 30 "$build/config.log" >&2; die "make tinyconfig failed"; }
(cd "$build" && "$src/scripts/kconfig/merge_config.sh" -m .config "$fragment") \
	>>"$build/config.log" 2>&1 || { tail -n 30 "$build/config.log" >&2; die "merge_config.sh failed"; }
kmake olddefconfig >>"$build/config.log" 2>&1 || { tail -n 30 "$build/config.log" >&2; die "make olddefconfig failed"; }
# Every option the fragment asks for must have survived Kconfig, and every
# one it says "is not set" must be off.
bad=
for line in $(grep -E '^CONFIG_[A-Z0-9_]+=' "$fragment"); do
	grep -qx "$line" "$build/.config" || bad="$bad $line"
done
for opt in $(sed -n 's/^# \(CONFIG_[A-Z0-9_]*\) is not set$/\1/p' "$fragment"); do
	! grep -q "^$opt=" "$build/.config" || bad="$bad $(grep "^$opt=" "$build/.config")"
done
[ -z "$bad" ] || die "Kconfig dropped:$bad (a dependency is missing from $fragment; see $build/config.log)"

say "building $targets with $jobs jobs (about 6 minutes on 2 cores); log: $build/build.log"
start=$(date +%s)
# Progress: one line per 250 compiled files, the log keeps everything.
if ! kmake -j"$jobs" $targets 2>&1 | tee "$build/build.log" |
	awk -v q="$quiet" '/^  [A-Z]/ { n++; if (!q && n % 250 == 0) { printf "build-vmlinux.sh: %5d steps, at %s\n", n, $2 > "/dev/stderr"; fflush("/dev/stderr") } }'; then
	:
fi
if [ ! -r "$build/vmlinux" ]; then
	grep -E 'error|Error' "$build/build.log" | head -n 20 >&2
	die "make $targets failed; see $build/build.log"
fi
if [ "$config" = kcsan ]; then
	grep -q ' race_test_init$' "$build/System.map" ||
		die "the race test is not in vmlinux (no race_test_init in $build/System.map)"
fi

tmp=$cache/.out-$key
rm -rf "$tmp"
mkdir -p "$tmp"
if [ "$config" != kcsan ]; then
	[ -r "$build/arch/x86/boot/bzImage" ] || die "make $targets made no bzImage; see $build/build.log"
	grep -qE '^(ERROR|make.*Error)' "$build/build.log" &&
		{ grep -E '^(ERROR|make.*Error)' "$build/build.log" | head -n 20 >&2
		  die "make $targets failed; see $build/build.log"; }
	# The host unwinds this kernel's stacks from its ORC tables.
	for s in .orc_unwind .orc_unwind_ip; do
		readelf -S -W "$build/vmlinux" | grep -qF " $s " ||
			die "$build/vmlinux has no $s section (is CONFIG_UNWINDER_ORC on?)"
	done
	release=$(cat "$build/include/config/kernel.release") ||
		die "no kernel release in $build/include/config/kernel.release"
	# Unstripped: the .ko files keep their DWARF, for symbolized frames.
	kmake INSTALL_MOD_PATH="$tmp/modules" ${depmod:+DEPMOD="$depmod"} modules_install \
		>"$build/modules_install.log" 2>&1 ||
		{ tail -n 20 "$build/modules_install.log" >&2; die "make modules_install failed"; }
	mods=$tmp/modules/lib/modules/$release
	for m in kernel/kernel/csan-race-test-module/csan_race_test.ko kernel/kernel/kcsan/kcsan_test.ko \
		kernel/kernel/torture.ko; do
		[ -r "$mods/$m" ] || die "make modules_install made no $m under $mods"
	done
	# The install's links point into the build tree, which is kept.
	cp "$build/arch/x86/boot/bzImage" "$tmp/bzImage"
	cp "$build/System.map" "$tmp/System.map"
	echo "$build" >"$tmp/build-dir"
fi
say "built in $(($(date +%s) - start)) s"
cp "$build/vmlinux" "$tmp/vmlinux"
cp "$build/.config" "$tmp/config"
cp "$build/build.log" "$tmp/build.log"
echo "$PKG $version" >"$tmp/source"
echo "$src" >"$tmp/source-dir"
rm -rf "$out"
mv "$tmp" "$out"
echo "$out/vmlinux"
