# hostile-hypercalls.sh VMM DIR: boot the hostile-hypercalls scenario once
# per malformed call (seed=1..9), in one session so the emulated host
# boots once.  Prints "case N rc=R" and the run's "bad hypercall" lines.
vmm=$1 dir=$2
for n in 1 2 3 4 5 6 7 8 9; do
	"$vmm" --cpus=1 --scenario=hostile-hypercalls --seed=$n --timeout=120 \
		--report-json="$dir/r$n.json" </dev/null >"$dir/out$n" 2>"$dir/err$n"
	echo "case $n rc=$?"
	grep 'bad hypercall' "$dir/err$n"
	# The run failed, yet its JSON file is whole: written and closed, no reports.
	[ -f "$dir/r$n.json" ] && echo "case $n json bytes=$(wc -c <"$dir/r$n.json")"
done
