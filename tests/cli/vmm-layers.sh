# vmm-layers.sh: src/vmm keeps its layers (docs/ARCHITECTURE.md), read from
# the built objects: no .c file calls into a folder above its own, and no
# files call each other in a circle.  A call is an undefined symbol of one
# object that another object of libvmm.a defines (functions and data).
. "$top_srcdir/tests/lib.sh"

command -v nm >/dev/null || skip "nm not found (install binutils)"
command -v tsort >/dev/null || skip "tsort not found (install coreutils)"
lib="$top_builddir/src/vmm/libvmm.a"
[ -f "$lib" ] || fail "$lib is not built"

# Each object's folder under src/vmm, from the sources (the archive keeps
# only base names: they must stay unique for this test to read it).
find "$top_srcdir/src/vmm" -name '*.c' | sed "s|^$top_srcdir/src/vmm/||" >"$work/sources"
dups=$(sed 's|.*/||' "$work/sources" | sort | uniq -d)
[ -z "$dups" ] || fail "two files of src/vmm share a name, which this test cannot tell apart: $dups"

# The layers, lowest first; a file may call its own layer and those below.
# guest/ and its profiles are one layer: profile.c picks a profile.
# sample/ reads a Linux vCPU through guest/linux/linux_view.h.
cat >"$work/ranks" <<'RANKS'
base 0
kvm 1
dev 2
console 3
hwwatch 4
image 5
workload 6
guest 7
sample 8
run 9
RANKS

nm -A "$lib" >"$work/nm" || fail "nm $lib failed"
# edges: "caller callee" as folder/file, one per line, without self-calls.
awk -v sources="$work/sources" '
	BEGIN { while ((getline l < sources) > 0) { b = l; sub(/.*\//, "", b); sub(/\.c$/, ".o", b); path[b] = l } }
	{
		split($1, p, ":"); obj = p[2]; sub(/^libvmm_a-/, "", obj)
		if (!(obj in path)) next
		f = path[obj]
		if ($2 == "U") used[f, $3] = 1
		else if ($2 ~ /^[TDBRC]$/) def[$3] = f
	}
	END { for (k in used) { split(k, x, SUBSEP); if ((x[2] in def) && def[x[2]] != x[1]) print x[1], def[x[2]] } }
' "$work/nm" | sort -u >"$work/edges"
[ -s "$work/edges" ] || fail "no calls between the objects of $lib: this test read nothing"

# Upward calls.
awk -v ranks="$work/ranks" '
	BEGIN { while ((getline l < ranks) > 0) { split(l, r, " "); rank[r[1]] = r[2] } }
	function layer(f) { split(f, p, "/"); return p[1] in rank ? rank[p[1]] : -1 }
	{
		if (layer($1) < 0 || layer($2) < 0) { print "unknown folder: " $1 " -> " $2; next }
		if (layer($2) > layer($1)) print "calls up: " $1 " -> " $2
	}
' "$work/edges" >"$work/up"
[ -s "$work/up" ] && fail "$(cat "$work/up")"

# Circles: tsort names the files of each loop it finds.
tsort "$work/edges" >/dev/null 2>"$work/loops"
[ -s "$work/loops" ] && fail "files call each other in a circle: $(tr '\n' ' ' <"$work/loops")"

echo "$(wc -l <"$work/edges") calls between $(wc -l <"$work/sources") files, all downward or within a layer, no circle"
exit 0
