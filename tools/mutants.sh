#!/bin/sh
# mutants.sh: make small changes to the product's C code, one at a time, and see which the tests miss.
#
#   tools/mutants.sh [--only=GLOB] [--ids=N,N,...] [--list=FILE] [--covers=FILE]
#                    [--jobs=N] [--no-baseline] [--keep] [--reuse=DIR] [--check]
#
# Each mutant in tools/mutants.list (or --list) replaces one unique piece
# of one line of src/vmm, src/watch or src/guest/runtime; tools/mutants.covers
# names the tests that cover each file, fastest first.  The source tree is
# copied into a scratch directory (never changed in place) and built there
# once; then, per mutant: apply, rebuild (only what the file changed),
# run its file's tests until one fails, restore.  --only keeps the mutants
# whose file matches GLOB (e.g. 'src/watch/*'), --ids those numbered (in
# list order, from 1).  --check only checks that each entry applies to
# the source tree (its text is there, once) and exits.  --keep leaves the
# scratch copy, and --reuse=DIR runs in such a copy again without copying
# or building (for work on the list; the copy's sources stay as they were).
# Before the mutants, every test they will use runs on the unchanged copy
# (--no-baseline skips that): a test that fails there would "kill" every
# mutant, one that skips can kill none, so the first stops the run and the
# second is left out, said in one line.
#
# One line per mutant: killed by WHICH test, survived, or did not build
# (a broken list entry: fix the list), with the seconds its rebuild and
# tests took, then
#   mutants: N killed, N survived, N did not build (K% killed)
# K is killed / (killed + survived).  Exit status 0 when K >= 90 and no
# entry was broken or failed to build, 1 when not, 2 on bad usage or a
# copy that does not build.
set -u

here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/.." && pwd)
list=$here/mutants.list
covers=$here/mutants.covers
only='*' ids='' jobs=2 baseline=1 keep=0 check_only=0 reuse=''
# What a mutant may need to be caught is one failing test; what it may
# break is a test that no longer ends.  Unit tests take seconds, VM tests
# in the emulated host a minute or two, with their own limits inside.
UNIT_LIMIT_S=180
VM_LIMIT_S=1200
KILL_TARGET_PERCENT=90

usage() {
	sed -n '3,4s/^# \{0,1\}//p' "$0" >&2
	exit 2
}
for a in "$@"; do
	case $a in
	--only=*) only=${a#*=} ;;
	--ids=*) ids=,${a#*=}, ;;
	--list=*) list=${a#*=} ;;
	--covers=*) covers=${a#*=} ;;
	--jobs=*) jobs=${a#*=} ;;
	--no-baseline) baseline=0 ;;
	--keep) keep=1 ;;
	--reuse=*) reuse=${a#*=} ;;
	--check) check_only=1 ;;
	*) usage ;;
	esac
done
for f in "$list" "$covers"; do
	[ -r "$f" ] || { echo "mutants: cannot read $f" >&2; exit 2; }
done

say() { echo "mutants: $*"; }
now() { date +%s; }
started=$(now)

# --- the scratch copy, removed on every way out ---------------------------
if [ -n "$reuse" ]; then
	[ -f "$reuse/src/build/Makefile" ] || { echo "mutants: $reuse is no kept copy" >&2; exit 2; }
	scratch=$(cd "$reuse" && pwd) keep=1
else
	scratch=$(mktemp -d "${TMPDIR:-/tmp}/csan-mutants.XXXXXX") || exit 2
fi
child='' mutating=''
cleanup() {
	# A test still running (its own process group, under timeout) ends first.
	if [ -n "$child" ]; then
		kill -TERM "$child" 2>/dev/null
		wait "$child" 2>/dev/null
	fi
	# A kept copy must not keep a mutant.
	[ -z "$mutating" ] || cp "$scratch/orig" "$mutating"
	if [ "$keep" = 1 ]; then
		say "scratch tree kept: $scratch"
	else
		rm -rf "$scratch"
	fi
}
trap cleanup EXIT
trap 'echo "mutants: interrupted" >&2; exit 130' INT TERM HUP

# run_bg LIMIT LOG CMD...: CMD under timeout, in the background so that a
# signal to this script is acted on at once (sh runs traps only between
# foreground commands).  Sets $rc.
run_bg() {
	limit=$1 log=$2
	shift 2
	timeout -k 30 "$limit" "$@" >"$log" 2>&1 </dev/null &
	child=$!
	wait "$child"
	rc=$?
	child=''
}

copy_tree() {
	mkdir "$scratch/src"
	# Tracked and new files as they are now (uncommitted edits included),
	# not build output; a tree without git (a release tarball) is copied
	# whole but for build directories.
	if git -C "$srcdir" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		(cd "$srcdir" && git ls-files -z --cached --others --exclude-standard |
			xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\n" "$f"; done' sh |
			tar -cf - -T -) | tar -xf - -C "$scratch/src"
	else
		(cd "$srcdir" && tar -cf - --exclude=./build --exclude='./build-*' \
			--exclude=./autom4te.cache .) | tar -xf - -C "$scratch/src"
	fi
}

# --- the list: one mutant per "@ FILE: what" block ---------------------------
# Parsed into lines "N<TAB>FILE<TAB>WHAT<TAB>FIND<TAB>REPLACE".
parse_list() {
	awk '
	function flush() {
		if (file == "") return
		if (!have_find || !have_repl) {
			printf "mutants: %s:%d: mutant %d has no %s line\n", FILENAME, start, n,
				have_find ? "\"+ \"" : "\"- \"" > "/dev/stderr"
			bad = 1
		}
		printf "%d\t%s\t%s\t%s\t%s\n", n, file, what, find, repl
		file = ""
	}
	/^[ \t]*#/ || /^[ \t]*$/ { next }
	/\t/ { printf "mutants: %s:%d: a tab (use spaces)\n", FILENAME, FNR > "/dev/stderr"; bad = 1; next }
	/^@ / {
		flush()
		n++; start = FNR
		line = substr($0, 3)
		i = index(line, ": ")
		if (!i) { printf "mutants: %s:%d: want \"@ FILE: what\"\n", FILENAME, FNR > "/dev/stderr"; bad = 1; next }
		file = substr(line, 1, i - 1); what = substr(line, i + 2)
		have_find = have_repl = 0; find = repl = ""
		next
	}
	/^- / && file != "" && !have_find { find = substr($0, 3); have_find = 1; next }
	/^-$/ && file != "" && !have_find { have_find = 1; next }
	/^\+ / && file != "" && !have_repl { repl = substr($0, 3); have_repl = 1; next }
	/^\+$/ && file != "" && !have_repl { have_repl = 1; next }
	{ printf "mutants: %s:%d: not part of a mutant: %s\n", FILENAME, FNR, $0 > "/dev/stderr"; bad = 1 }
	END { flush(); exit bad }
	' "$list"
}

# The tests for FILE: the first line of the covers file whose glob matches.
tests_for() {
	while read -r glob tests; do
		case $glob in '' | '#'*) continue ;; esac
		# shellcheck disable=SC2254 # the glob is the point
		case $1 in $glob) echo "$tests"; return ;; esac
	done <"$covers"
}

# apply FILE: FIND (exactly once in FILE) becomes REPLACE, from ENVIRON so
# that awk unescapes nothing.  Exit 3: not found, 4: found more than once.
apply() {
	[ -f "$1" ] || return 5
	MUT_FIND=$find MUT_REPL=$repl awk '
	BEGIN { f = ENVIRON["MUT_FIND"]; r = ENVIRON["MUT_REPL"]; hits = 0 }
	{
		line = $0; out = ""
		while ((i = index(line, f)) > 0) {
			hits++
			out = out substr(line, 1, i - 1) r
			line = substr(line, i + length(f))
		}
		lines[NR] = out line
	}
	END {
		if (hits != 1) exit hits ? 4 : 3
		for (i = 1; i <= NR; i++) print lines[i] > ENVIRON["MUT_OUT"]
	}' "$1"
}

is_program() {
	case $1 in tests/unit/* | tests/watch/* | tests/native/*) return 0 ;; esac
	return 1
}

# run_test TEST: one test through make check, as a user runs it; sets
# $result to PASS, FAIL, SKIP, ERROR or TIMEOUT and $secs.
run_test() {
	t=$1
	limit=$VM_LIMIT_S
	is_program "$t" && limit=$UNIT_LIMIT_S
	# Automake names a test's results without its TEST_EXTENSIONS suffix.
	stem=$build/${t%.sh}
	stem=${stem%.vm}
	rm -f "$stem.log" "$stem.trs"
	t0=$(now)
	# check_PROGRAMS= : build only this test's program (its .log rule
	# names it), not every unit test after each mutant.
	run_bg "$limit" "$scratch/test.out" make -C "$build" check TESTS="$t" check_PROGRAMS=
	secs=$(($(now) - t0))
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		result=TIMEOUT
		return
	fi
	result=$(sed -n 's/^:test-result: //p' "$stem.trs" 2>/dev/null | head -n 1)
	[ -n "$result" ] || result=ERROR
}

entries=$scratch/entries
parse_list >"$entries" || exit 2
# The mutants this run is to try, and the union of their tests.
selected=$scratch/selected
: >"$selected"
all_tests=''
tab=$(printf '\t')
while IFS=$tab read -r n file what find repl; do
	# shellcheck disable=SC2254
	case $file in $only) ;; *) continue ;; esac
	[ -z "$ids" ] || case $ids in *",$n,"*) ;; *) continue ;; esac
	tests=$(tests_for "$file")
	if [ -z "$tests" ]; then
		echo "mutants: $file (mutant $n) has no line in $covers" >&2
		exit 2
	fi
	printf '%s\n' "$n$tab$file$tab$what$tab$find$tab$repl" >>"$selected"
	for t in $tests; do
		case " $all_tests " in *" $t "*) ;; *) all_tests="$all_tests $t" ;; esac
	done
done <"$entries"
[ -s "$selected" ] || { echo "mutants: no mutant matches" >&2; exit 2; }
if [ "$check_only" = 1 ]; then
	bad=0
	while IFS=$tab read -r n file what find repl; do
		MUT_OUT=/dev/null apply "$srcdir/$file"
		case $? in
		0) ;;
		3) say "mutant $n $file: '$find' is not in the file"; bad=1 ;;
		5) say "mutant $n $file: no such file"; bad=1 ;;
		*) say "mutant $n $file: '$find' is in the file more than once"; bad=1 ;;
		esac
	done <"$selected"
	[ "$bad" = 0 ] && say "$(wc -l <"$selected") entries apply"
	exit "$bad"
fi
say "$(wc -l <"$selected") mutants; tests:$all_tests"

# --- build the copy once -----------------------------------------------------
build=$scratch/src/build
build_copy() {
	say "copying $srcdir to $scratch and building it"
	copy_tree
	mkdir "$build"
	(cd "$scratch/src" && autoreconf -fi) >"$scratch/setup.log" 2>&1 &&
		(cd "$build" && ../configure) >>"$scratch/setup.log" 2>&1 &&
		make -C "$build" -j"$jobs" >>"$scratch/setup.log" 2>&1 &&
		make -C "$build" -j"$jobs" check TESTS= >>"$scratch/setup.log" 2>&1 || {
		tail -n 30 "$scratch/setup.log" >&2
		echo "mutants: the unchanged copy does not build (above)" >&2
		exit 2
	}
	say "built in $(($(now) - started)) s"
}
if [ -n "$reuse" ]; then
	say "reusing the copy in $scratch"
else
	build_copy
fi

# --- baseline: every test must pass on the unchanged code ---------------------
skipped=''
if [ "$baseline" = 1 ]; then
	for t in $all_tests; do
		run_test "$t"
		case $result in
		PASS) say "baseline: $t passes ($secs s)" ;;
		SKIP)
			say "baseline: $t skips here, so it can kill nothing: left out ($(grep -m1 -i 'skip' "$stem.log" 2>/dev/null))"
			skipped="$skipped $t"
			;;
		*)
			tail -n 20 "$stem.log" 2>/dev/null || tail -n 20 "$scratch/test.out"
			echo "mutants: $t gives $result on the unchanged code: a kill by it would mean nothing" >&2
			exit 2
			;;
		esac
	done
fi

# --- the mutants --------------------------------------------------------------
killed=0 survived=0 nobuild=0 broken=0
while IFS=$tab read -r n file what find repl; do
	src=$scratch/src/$file
	head="mutant $n $file: $what:"
	cp "$src" "$scratch/orig"
	MUT_OUT=$scratch/mutated
	export MUT_OUT
	apply "$src"
	case $? in
	0) ;;
	3) say "$head BROKEN ENTRY: '$find' is not in the file"; broken=$((broken + 1)); continue ;;
	5) say "$head BROKEN ENTRY: no such file"; broken=$((broken + 1)); continue ;;
	*) say "$head BROKEN ENTRY: '$find' is in the file more than once"; broken=$((broken + 1)); continue ;;
	esac
	mutating=$src
	cp "$scratch/mutated" "$src"
	t0=$(now)
	run_bg "$VM_LIMIT_S" "$scratch/build.out" make -C "$build" -j"$jobs" all
	if [ "$rc" != 0 ]; then
		echo "$head did not build"
		grep -m 3 'error' "$scratch/build.out" | sed 's/^/    /'
		nobuild=$((nobuild + 1))
	else
		verdict='' ran=''
		for t in $(tests_for "$file"); do
			case " $skipped " in *" $t "*) continue ;; esac
			run_test "$t"
			ran="$ran $t"
			case $result in
			PASS | SKIP) ;;
			TIMEOUT) verdict="killed by $t (no end within its limit)"; break ;;
			*) verdict="killed by $t ($result)"; break ;;
			esac
		done
		if [ -n "$verdict" ]; then
			echo "$head $verdict [$(($(now) - t0)) s]"
			killed=$((killed + 1))
		else
			echo "$head SURVIVED (ran:$ran) [$(($(now) - t0)) s]"
			survived=$((survived + 1))
		fi
	fi
	# cp, not cp -p: the restored file is newer than the mutant's objects,
	# so the next build compiles it again.
	cp "$scratch/orig" "$src"
	mutating=''
done <"$selected"

# --- the closing line ---------------------------------------------------------
judged=$((killed + survived))
percent=0
[ "$judged" = 0 ] || percent=$((killed * 100 / judged))
say "took $(($(now) - started)) s"
[ "$broken" = 0 ] || say "$broken broken list entries (fix tools/mutants.list)"
echo "mutants: $killed killed, $survived survived, $nobuild did not build ($percent% killed)"
[ "$percent" -ge "$KILL_TARGET_PERCENT" ] && [ "$broken" = 0 ] && [ "$nobuild" = 0 ]
