#!/bin/sh
# check.sh: the whole test suite from a fresh clone: install what is
# needed, build out of tree in ./build (reusing the README's first command's
# build), run `make check` (unit, command-line and VM tests, the VM tests
# both on this /dev/kvm and in the emulated host), then the ASan+UBSan
# build's share in ./build-asan, and end on the "N passed, N failed, N
# skipped" line of both, after a "not run" line per reason for skipping.
#
# Machines differ in what KVM they have (../shared/HOST-FACTS.md): where
# /dev/kvm does not exist, the direct environment's tests cannot run and
# are reported as not run, and the sanitizer build's VM tests run in the
# emulated host instead.  Any other skip fails a CI run.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2

if [ "$(id -u)" = 0 ]; then
	sh tools/install-deps.sh >build-deps.log 2>&1 || {
		tail -n 30 build-deps.log
		echo "check.sh: installing packages failed (log: build-deps.log)"
		echo "0 passed, 1 failed"
		exit 1
	}
else
	echo "check.sh: not root, assuming tools/install-deps.sh has been run"
fi

step() {
	echo "== $*"
	"$@" || {
		echo "check.sh: '$*' failed"
		echo "0 passed, 1 failed"
		exit 1
	}
}

# A tree configured in place (./configure at the top) refuses out-of-tree
# builds: clean it, keeping nothing the suite needs.
if [ -f config.status ]; then
	echo "check.sh: the source tree is configured in place; 'make distclean' there first"
	make distclean >/dev/null 2>&1 || rm -f config.status
fi
[ -x configure ] || step autoreconf -fi
mkdir -p build
cd build || exit 2
[ -f Makefile ] || step ../configure
step make -j2
# Prepare the emulated host once, so parallel tests share a warm cache.
src/harness/emuhost --setup || echo "check.sh: emulated host set-up failed; its tests will say why"
# And the Linux test kernel (about 6 minutes on 2 cores, once per machine:
# cached), so the Linux tests do not wait for it one behind the other.
"$top/tools/linux/build-vmlinux.sh" >/dev/null || echo "check.sh: the Linux test kernel did not build; its tests will say why"
"$top/tools/linux/build-vmlinux.sh" --config=workload >/dev/null ||
	echo "check.sh: the second Linux test kernel (bzImage, modules) did not build; its tests will say why"
# This run's results only: what an earlier run left is removed, and the
# closing line fails any result not newer than this stamp.
stamp=$top/build/.check-started
find "$top/build" "$top/build-asan" -path '*/tests/*' -name '*.trs' -exec rm -f {} + 2>/dev/null
# (Two seconds back: a shell's -nt may compare whole seconds, and the
# first unit test ends within the second this is written.)
touch -d "@$(($(date +%s) - 2))" "$stamp"
make -s list-tests >.tests-expected || echo "check.sh: make list-tests failed"
make -j2 check
rc=$?
# A failed make check that no failed test explains is one failure more.
no_test_failed_here() {
	! find . -path './tests/*' -name '*.trs' -exec grep -l '^:test-result: \(FAIL\|ERROR\|XPASS\)' {} + 2>/dev/null | grep -q .
}
[ "$rc" = 0 ] || ! no_test_failed_here || steps_failed="make check in build/ exited with status $rc, and no test failed"
dirs=$top/build=$top/build/.tests-expected

# The same host code under AddressSanitizer and UBSan, in its own build
# directory (the guest is built as ever: sanitizers never reach it).  The
# whole suite again would double the time, so it runs what drives the host
# code directly: `make check-host-paths`, the unit and command-line tests
# and every VM test on this machine's /dev/kvm, hostile guests included.
# The fuzz targets are left to the first build (they have their own
# sanitizers).  CHECK_SANITIZERS=no skips it.
if [ "${CHECK_SANITIZERS:-yes}" = yes ]; then
	mkdir -p "$top/build-asan"
	cd "$top/build-asan" || exit 2
	[ -f Makefile ] || step ../configure --enable-sanitizers=address,undefined --disable-fuzz
	step make -j2
	vm_env=direct
	[ -e /dev/kvm ] || vm_env=emuhost
	echo "== sanitizer build: VM tests in the $vm_env environment"
	make -s list-host-path-tests HOST_PATH_VM_ENV=$vm_env >.tests-expected ||
		echo "check.sh: make list-host-path-tests failed"
	make -j2 check-host-paths HOST_PATH_VM_ENV=$vm_env
	rc=$?
	[ "$rc" = 0 ] || ! no_test_failed_here || steps_failed="${steps_failed:+$steps_failed
}make check-host-paths in build-asan/ exited with status $rc, and no test failed"
	dirs="$dirs $top/build-asan=$top/build-asan/.tests-expected"
fi

# In CI a skip is a failure, but for the one thing a machine may lack:
# /dev/kvm itself (the tests that need it say so in their SKIP line).
no_kvm_reason='SKIP: /dev/kvm does not exist'
if [ "${CI:-}" = true ]; then
	# shellcheck disable=SC2086 # dirs is a word list
	for trs in $(grep -l '^:test-result: SKIP' $(find $(echo "$dirs" | sed 's/=[^ ]*//g') -name '*.trs')); do
		log=${trs%.trs}.log
		if [ ! -e /dev/kvm ] && grep -q "^$no_kvm_reason" "$log"; then
			continue
		fi
		echo "check.sh: skipped in CI, where only what needs a missing /dev/kvm may be: ${log#"$top"/}: $(grep -m 1 '^SKIP' "$log")"
		ci_failed=1
	done
fi
# The closing line counts this run's tests of both builds, each build's
# whole list, and fails a step that failed outside them.
set -- --since "$stamp"
if [ -n "${steps_failed:-}" ]; then
	while IFS= read -r s; do set -- "$@" --step-failed "$s"; done <<EOF
$steps_failed
EOF
fi
# shellcheck disable=SC2086 # dirs is a word list
sh "$top/tests/summary.sh" "$@" $dirs
status=$?
[ -z "${ci_failed:-}" ] || status=1
exit $status
