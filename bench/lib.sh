# lib.sh: what the benchmark scripts share; sourced after they set
# src and build (TOP_SRCDIR and TOP_BUILDDIR).
# shellcheck disable=SC2154 # src and build come from the sourcing script

emuhost="$src/src/harness/emuhost.sh"

# need_emuhost NAME: exit 77 (not measured here) with NAME's message
# when the emulated host cannot be set up.
need_emuhost() {
	"$emuhost" --check >/dev/null 2>&1 || {
		echo "$1: emulated host unavailable"
		exit 77
	}
}

# in_emuhost TIMEOUT SCRIPT: run the shell SCRIPT in one boot of the
# emulated host, with this build's csan-vmm and guest carried in, and
# print what it printed.
in_emuhost() {
	"$emuhost" --timeout "$1" --file "$build/csan-vmm" \
		--file "$build/src/guest/csan-guest:/csan/src/guest/csan-guest" -- sh -c "$2"
}
