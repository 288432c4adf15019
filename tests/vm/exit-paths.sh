# exit-paths.sh: reports are never lost on the way out.  A guest sends
# 1000 race reports, then the run ends by SIGINT, SIGTERM, --timeout or a
# guest panic; each time the exit status is the documented one and the
# closing summary line and the JSON exit record say it, the race summary
# is printed with all 1000, and the --report-json file is complete (its
# summary, totals and exit objects count all 1000).  In the emulated host
# the reports come from one vCPU: see report-flood.sh for why.
. "$top_srcdir/tests/lib.sh"
require_vm_env
cpus=2
[ "${CSAN_TEST_ENV:-direct}" = emuhost ] && cpus=1
run_helper exit-paths $cpus
for way in INT TERM timeout panic; do
	case $way in
	INT | TERM) want=130 word=interrupted end=signal ;;
	timeout) want=4 word=timeout end=timeout ;;
	panic) want=3 word=crash end=fault ;;
	esac
	expect_out "^$way rc=$want\$"
	expect_out "^$way: csan-vmm: exit status $want \\($word\\): 1000 race reports; workload: no exit status reported; KUnit: none\$"
	expect_out "^$way: \\{\"type\":\"exit\",\"status\":$want,\"word\":\"$word\",\"end\":\"$end\",.*\"reports\":1000,"
	expect_out "^$way: csan-vmm: race summary: 1 distinct race in 1000 reports, "
	expect_out "^$way: \\{\"type\":\"summary\",\"signature\":\"data-race:flood_reader/flood_writer\",.*\"count\":1000,"
	expect_out "^$way: \\{\"type\":\"totals\",\"reports\":1000,\"distinct\":1,"
done
expect_out '^INT: csan-vmm: stopped by Interrupt$'
expect_out '^TERM: csan-vmm: stopped by Terminated$'
expect_out '^timeout: csan-vmm: guest still running after --timeout=20 s$'
expect_out '^panic: csan-vmm: vCPU [0-9]+: guest panic: report-flood: failing on purpose after 1000 reports$'
