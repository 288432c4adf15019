# tests/fuzz/run-target.sh: run one libFuzzer target (sourced by its
# generated wrapper tests/fuzz/NAME.fuzz, or run by `make fuzz`).
#
# Always: every seed and every crash regression once; a crash fails.
# Then fuzz: FUZZ_CHECK_SECONDS (default 3) under make check, FUZZ_SECONDS
# under `make fuzz` (FUZZ_MODE=long), growing a corpus in the build tree.
# A new crash is left in the build tree's tests/fuzz/artifacts/; add it to
# tests/fuzz/regressions/NAME/ once the bug is fixed.
: "${top_srcdir:?run through make check}" "${top_builddir:?run through make check}"
name=$1
bin="$top_builddir/tests/fuzz/fuzz-$name"
seeds="$top_srcdir/tests/fuzz/seeds/$name"
regress="$top_srcdir/tests/fuzz/regressions/$name"

if [ ! -x "$bin" ]; then
	echo "SKIP: fuzz target $name not built: ${FUZZ_SKIP_REASON:-run make check to build it}"
	exit 77
fi
[ -d "$seeds" ] || { echo "FAIL: no seed corpus $seeds"; exit 1; }

# Inputs replayed one by one: a crash names the file.
inputs=$(find "$seeds" "$regress" -type f ! -name README 2>/dev/null | sort)
# shellcheck disable=SC2086 # one word per input file
"$bin" -runs=1 $inputs >"$top_builddir/tests/fuzz/$name-replay.log" 2>&1 || {
	echo "FAIL: fuzz-$name crashed on a seed or regression input:"
	tail -n 40 "$top_builddir/tests/fuzz/$name-replay.log"
	exit 1
}
echo "replayed $(echo "$inputs" | wc -l) seed and regression inputs"

corpus="$top_builddir/tests/fuzz/corpus/$name"
artifacts="$top_builddir/tests/fuzz/artifacts/$name/"
mkdir -p "$corpus" "$artifacts"
if [ "${FUZZ_MODE:-check}" = long ]; then
	secs=${FUZZ_SECONDS:-60}
else
	secs=${FUZZ_CHECK_SECONDS:-3}
fi
# -rss_limit_mb: a target that grows memory without bound is a finding too.
# -close_fd_mask=3: the VMM's own messages about bad input would drown the
# output; libFuzzer keeps the sanitizers' reports on a copy of stderr.
"$bin" -max_total_time="$secs" -rss_limit_mb=1024 -timeout=10 -print_final_stats=1 -close_fd_mask=3 \
	-artifact_prefix="$artifacts" "$corpus" "$seeds" \
	>"$top_builddir/tests/fuzz/$name-fuzz.log" 2>&1
rc=$?
grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' "$top_builddir/tests/fuzz/$name-fuzz.log"
if [ $rc != 0 ]; then
	echo "FAIL: fuzz-$name found a crash in ${secs}s (input saved in $artifacts):"
	tail -n 60 "$top_builddir/tests/fuzz/$name-fuzz.log"
	exit 1
fi
echo "PASS: fuzz-$name: ${secs}s without a crash"
exit 0
