# wait-for.sh: sourced by the helpers (busybox sh, so in the emulated host
# too).

# wait_for_line FILE ERE PID: wait until FILE has a line matching ERE.
# False if process PID ends first, or after 120 s.
wait_for_line() {
	_n=0
	until grep -Eq -- "$2" "$1" 2>/dev/null; do
		_n=$((_n + 1))
		if [ $_n -gt 600 ] || ! kill -0 "$3" 2>/dev/null; then
			return 1
		fi
		sleep 0.2
	done
}
