# usage.sh: --help, --version and every kind of bad command line.
. "$top_srcdir/tests/lib.sh"

run_cli() {
	"$VMM" "$@" >"$out" 2>"$err"
	rc=$?
}

run_cli --help
expect_rc 0
for opt in --cpus --memory --append --scenario --timeout --seed --report-json --source-root --control \
	--send --console-escapes --sandbox --watch --host --guest --vmlinux --modules --disk --run \
	--add --initrd --compare --compare-json \
	--sample-breakpoints --sample-delay --sample-period --sample-only --kaslr \
	--quiet --probe --version; do
	# Listed as an option: at the start of its help line, then "=VALUE",
	# a space or the end (--compare is not --compare-json).
	expect_out "^  (-[a-z], |    )$opt([= ]|\$)"
done

run_cli --version
expect_rc 0
expect_out '^csan-vmm [0-9]+\.[0-9]+\.[0-9]+ \(guest ABI [0-9]+\)$'

# Each bad value: status 2, the option named, a pointer to --help.
bad() {
	opt=$1
	shift
	run_cli "$@"
	expect_rc 2
	expect_err "$opt"
	expect_err "csan-vmm --help"
}
bad --source-root --source-root=
bad --cpus --cpus=0
bad --host --host=qemu
bad --cpus --cpus=65
bad --cpus -c x
bad --memory --memory=1M
bad --memory -m 4G
bad --memory --memory=12Q
bad --timeout --timeout=-1
bad --seed --seed=abc
bad "unknown option" --frobnicate
bad "needs a value" --cpus
bad "unexpected argument" a.elf b.elf
bad --console-escapes --console-escapes=maybe
bad --sandbox --sandbox=maybe
bad --sandbox --sandbox=
bad --send --send=stats
bad --send --control=/tmp/x --send=
bad --control --control=
bad "--compare-json: only with --compare" --compare-json=x.json
bad "--watch: --compare runs each mode itself" --compare --watch=soft
bad "--watch: --compare runs each mode itself" --compare --watch=sample
bad "--sample-period: only with --watch=sample" --sample-period=5
bad "--kaslr: only with --watch=sample" --kaslr
bad "--kaslr: only with --watch=sample" --watch=hw --kaslr
bad "--kaslr: only with --watch=sample" --compare=soft,hw,sample --kaslr
bad "--scenario=all: only with --compare" --scenario=all
bad "--compare-json: give a file name" --compare --compare-json=

run_cli /nonexistent/guest.elf
expect_rc 2
expect_err '/nonexistent/guest.elf'
