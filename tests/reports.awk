# reports.awk: check every race report in csan-vmm's stderr on its own.
#
# Input: csan-vmm's stderr.  A report is the text between two rule lines
# of 66 '=' (report_fmt.c): the "BUG: KCSAN: TITLE" line, one or two
# access lines each followed by its stack, and what comes after.  Every
# report must match one of the allowed shapes; a shape is one line of
# ENVIRON["CSAN_REPORT_SHAPES"] with tab-separated fields:
#	TITLE ACCESS1 FRAME1 ACCESS2 FRAME2 [EXTRA...]
# TITLE is matched against the text after "BUG: KCSAN: ", ACCESSn
# against side n's access line and FRAMEn against the first frame of
# its stack; ACCESS2 "-" means a report with one side only.  Each
# EXTRA must match some line of the report.  All are EREs matched
# against whole lines.  Patterns come through ENVIRON, not -v: awk
# would process backslash escapes in -v values, and not every awk does
# it alike (mawk keeps "\+", gawk warns and drops the backslash).
#
# Prints "reports=N" (the number of reports) and exits 0 when every
# report has an allowed shape and no "BUG: KCSAN" line stands outside a
# report; otherwise prints what failed, with the report, and exits 1.

function whole(p) { return "^(" p ")$" }

function show_report(   i) {
	for (i = 1; i <= nl; i++)
		print "    | " line[i]
}

# Does the report in line[1..nl] match shape @s?
function fits(s,   f, n, i, j, found) {
	n = split(shape[s], f, "\t")
	if (title !~ whole(f[1]))
		return 0
	if (f[4] == "-") {
		if (nsides != 1)
			return 0
	} else if (nsides != 2 || acc[2] !~ whole(f[4]) || top[2] !~ whole(f[5]))
		return 0
	if (acc[1] !~ whole(f[2]) || top[1] !~ whole(f[3]))
		return 0
	for (i = 6; i <= n; i++) {
		found = 0
		for (j = 1; j <= nl; j++)
			if (line[j] ~ whole(f[i]))
				found = 1
		if (!found)
			return 0
	}
	return 1
}

function check_report(   i, s) {
	nreports++
	title = line[1]
	if (sub(/^BUG: KCSAN: /, "", title) != 1) {
		print "report " nreports " (line " start "): does not start with \"BUG: KCSAN: \""
		show_report()
		bad++
		return
	}
	nsides = 0
	for (i = 2; i <= nl; i++)
		if (line[i] ~ /^(race at unknown origin, with )?[a-z][a-z() -]* to 0x[0-9a-f]+ of [0-9]+ bytes by (task [0-9]+|interrupt) on cpu [0-9]+:$/) {
			nsides++
			acc[nsides] = line[i]
			# A side without a stack has an empty top frame.
			top[nsides] = (i < nl && line[i + 1] ~ /^ /) ? line[i + 1] : ""
		}
	# What the csan guest knows apart from csan-vmm (expect_reports sets
	# CSAN_REPORT_TASK_RULE=cpu+1; Linux's tasks are its PIDs): one
	# kernel thread per CPU, numbered from 1, so CPU n runs task n+1
	# (src/guest/runtime/port-csanos.c); a side whose task and CPU
	# disagree was misreported.
	for (i = 1; i <= nsides && ENVIRON["CSAN_REPORT_TASK_RULE"] == "cpu+1"; i++)
		if (match(acc[i], /by task [0-9]+ on cpu [0-9]+:$/)) {
			split(substr(acc[i], RSTART), w, " ")
			if (w[3] + 0 != substr(w[6], 1, length(w[6]) - 1) + 1) {
				print "report " nreports " (line " start "): side " i " says task " w[3] " on cpu " substr(w[6], 1, length(w[6]) - 1) ", but the guest runs task n+1 on cpu n:"
				show_report()
				bad++
				return
			}
		}
	# csan-vmm prints every report of the csan guest: one "Seen by:" line
	# naming a mechanism per side, each with its access in parentheses;
	# and the guest's one task per CPU cannot race with itself.
	if (ENVIRON["CSAN_REPORT_TASK_RULE"] == "cpu+1") {
		nseen = 0
		for (i = 2; i <= nl; i++)
			if (line[i] ~ /^Seen by: /) {
				nseen++
				seen = line[i]
			}
		# Mechanisms, counted by name: access words have parentheses
		# and commas of their own ("read (marked, scoped)").
		nmech = 0
		while (match(seen, /(: |, )(guest soft watchpoint( and host debug register)?|host debug register|host unwind|host sampling breakpoint) \(/)) {
			nmech++
			seen = substr(seen, RSTART + RLENGTH)
		}
		if (nseen != 1 || nmech != nsides) {
			print "report " nreports " (line " start "): " nseen " \"Seen by:\" lines, not one naming each of its " nsides " sides:"
			show_report()
			bad++
			return
		}
		if (nsides == 2 && acc[1] ~ /by task / && acc[2] ~ /by task / &&
		    substr(acc[1], index(acc[1], " by task ")) == substr(acc[2], index(acc[2], " by task "))) {
			print "report " nreports " (line " start "): both sides are the same task on the same CPU:"
			show_report()
			bad++
			return
		}
	}
	for (s = 1; s <= nshapes; s++)
		if (fits(s))
			return
	print "report " nreports " (line " start "): no allowed shape fits this report:"
	show_report()
	bad++
}

BEGIN {
	rule = "=================================================================="
	nshapes = 0
	if (ENVIRON["CSAN_REPORT_SHAPES"] != "")
		nshapes = split(ENVIRON["CSAN_REPORT_SHAPES"], shape, "\n")
}

$0 == rule {
	if (inside)
		check_report()
	else {
		nl = 0
		start = NR
	}
	inside = !inside
	next
}

inside { line[++nl] = $0; next }

/^BUG: KCSAN/ {
	print "line " NR ": a report title outside the report rules: " $0
	bad++
}

END {
	if (inside) {
		print "line " start ": a report that never ends (no closing rule)"
		bad++
	}
	if (bad && nshapes) {
		print "allowed shapes (title, side 1 access and frame, side 2 access and frame, extras):"
		for (k = 1; k <= nshapes; k++) {
			gsub(/\t/, "\n      ", shape[k])
			print "  - " shape[k]
		}
	} else if (bad)
		print "no report is allowed in this run"
	print "reports=" nreports + 0
	exit bad ? 1 : 0
}
