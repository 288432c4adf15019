#!/bin/sh
# without-kvm.sh COMMAND [ARGS...]: run COMMAND as root as if this machine
# had no /dev/kvm, the way many CI runners and containers are: in a private
# mount namespace, /dev is replaced by a copy without kvm.  For checking
# that csan-vmm (--host=auto) and the suite (tools/check.sh) work there.
set -eu
[ "$(id -u)" = 0 ] || { echo "without-kvm.sh: run as root (it uses unshare -m)" >&2; exit 2; }
[ $# -gt 0 ] || { echo "usage: without-kvm.sh COMMAND [ARGS...]" >&2; exit 2; }
exec unshare -m --propagation private sh -c '
	set -e
	d=$(mktemp -d /tmp/without-kvm.XXXXXX)
	mount -t tmpfs -o mode=755 none "$d"
	for n in null zero full random urandom tty; do cp -a "/dev/$n" "$d/"; done
	mkdir "$d/pts" "$d/shm"
	ln -s /proc/self/fd "$d/fd"
	ln -s /proc/self/fd/0 "$d/stdin"
	ln -s /proc/self/fd/1 "$d/stdout"
	ln -s /proc/self/fd/2 "$d/stderr"
	mount --bind "$d" /dev
	mount -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts /dev/pts
	ln -s pts/ptmx /dev/ptmx
	mount -t tmpfs -o mode=1777 none /dev/shm
	[ ! -e /dev/kvm ]
	exec "$@"' without-kvm "$@"
