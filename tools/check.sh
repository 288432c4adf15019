#!/bin/sh
# check.sh: the whole test suite from a fresh clone: install what is
# needed, build out of tree in ./build, run `make check` (unit, command-line
# and VM tests, the VM tests both on this /dev/kvm and in the emulated
# host), and end on the "N passed, N failed, N skipped" line.
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

[ -x configure ] || step autoreconf -fi
mkdir -p build
cd build || exit 2
[ -f Makefile ] || step ../configure
step make -j2
# Prepare the emulated host once, so parallel tests share a warm cache.
"$top/tests/harness/emuhost" --setup || echo "check.sh: emulated host set-up failed; its tests will say why"
make -j2 check
# The closing line counts every test; in CI a skip is a failure too,
# because both environments exist there.
sh "$top/tests/summary.sh" .
status=$?
if [ "${CI:-}" = true ] && grep -l '^:test-result: SKIP' $(find . -name '*.trs') >/dev/null 2>&1; then
	echo "check.sh: tests were skipped in CI, where nothing may skip:"
	grep -l '^:test-result: SKIP' $(find . -name '*.trs')
	status=1
fi
exit $status
