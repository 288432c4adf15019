# compare-superset.awk: does hw mode report every race soft mode reports?
# Reads csan-vmm --compare-json's output (one race object a line) and
# prints one line per race soft mode found, "covered" or "MISSING" with
# why, then "soft=N covered=N missing=N".  Exits 1 when any is missing.
#
# A two-sided race soft mode reported must be in hw mode's column under
# the same signature, and two-sided there too (no "reported_as": a
# one-sided report paired with it).  A one-sided soft race
# ("unknown-origin:F", the watcher F saw a value change and nobody) is
# covered by hw mode's own one-sided report of F, or by any two-sided
# race of the same scenario that names F: the same race, with its other
# side known.  Plain POSIX awk (mawk, gawk, busybox), no JSON library: the
# compare table writes each race on one line in a fixed key order.

function field(s, key,    i, rest) {
	i = index(s, "\"" key "\":\"")
	if (!i)
		return ""
	rest = substr(s, i + length(key) + 4)
	return substr(rest, 1, index(rest, "\"") - 1)
}

# The mode's part of a race line: "soft":{...} or "hw":{...}, or "" for null.
function part(s, mode,    i, rest) {
	i = index(s, "\"" mode "\":{")
	if (!i)
		return ""
	rest = substr(s, i)
	return substr(rest, 1, index(rest, "}"))
}

/^\{"scenario":.*"signature":/ {
	n++
	scen[n] = field($0, "scenario")
	sig[n] = field($0, "signature")
	soft[n] = part($0, "soft")
	hw[n] = part($0, "hw")
}

# Does two-sided signature S ("kind:a/b") name F on either side?
function names(s, f,    p) {
	p = index(s, ":")
	s = "/" substr(s, p + 1) "/"
	return index(s, "/" f "/") != 0
}

END {
	for (i = 1; i <= n; i++) {
		if (soft[i] == "")
			continue
		nsoft++
		why = ""
		if (sig[i] ~ /^unknown-origin:/) {
			f = substr(sig[i], length("unknown-origin:") + 1)
			ok = hw[i] != ""
			for (j = 1; j <= n && !ok; j++)
				ok = scen[j] == scen[i] && sig[j] !~ /^unknown-origin:/ &&
					hw[j] != "" && hw[j] !~ /"reported_as"/ && names(sig[j], f)
			if (!ok)
				why = "no hw report of " f ", one-sided or two-sided"
		} else if (hw[i] == "") {
			why = "hw mode did not report it"
		} else if (hw[i] ~ /"reported_as"/) {
			why = "hw mode reported it one-sided only"
		}
		if (why == "") {
			covered++
			print "covered: " scen[i] ": " sig[i]
		} else {
			missing++
			print "MISSING: " scen[i] ": " sig[i] ": " why
		}
	}
	printf "soft=%d covered=%d missing=%d\n", nsoft, covered, missing
	exit missing != 0
}
