# emulated-hw-report.sh: --host=emulated --watch=hw names the uninstrumented
# writer of uninstr-origin with both stacks (debug registers work in the
# emulated host), exits 1, and --report-json lands at the host path given,
# holding that report and the summary.
. "$top_srcdir/tests/lib.sh"
require_emulated_host
json=$work/sub/report.json
mkdir -p "$work/sub"
cd "$work/sub" || fail "cannot enter $work/sub"
run_host --host=emulated --watch=hw --scenario=uninstr-origin --timeout=120 \
	--report-json=report.json
expect_rc 1
expect_err_in_order '^BUG: KCSAN: data-race in uninstr_origin_reader / uninstr_origin_writer$' \
	'^write to 0x[0-9a-f]+ of 8 bytes by task [0-9]+ on cpu [0-9]+:$' \
	'^ uninstr_origin_writer\+0x[0-9a-f]+/0x[0-9a-f]+ .*uninstr-origin\.c:[0-9]+$' \
	'^read to 0x[0-9a-f]+ of 8 bytes by task [0-9]+ on cpu [0-9]+:$' \
	'^ uninstr_origin_reader\+0x[0-9a-f]+/0x[0-9a-f]+ .*uninstr-origin\.c:[0-9]+$'
[ -s "$json" ] || fail "--report-json=report.json did not land in the working directory"
grep -q '"type":"report".*"signature":"data-race:uninstr_origin_reader/uninstr_origin_writer"' "$json" ||
	fail "the JSON has no report of the race: $(head -c 400 "$json")"
grep -q '"type":"summary"' "$json" || fail "the JSON has no summary line"
grep -q '"mode":"hw"' "$json" || fail "the JSON report is not from hw mode"
