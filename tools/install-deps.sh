#!/bin/sh
# install-deps.sh: install the Debian 12 packages csan-vmm needs to build,
# test and run its emulated-host harness.  Idempotent; run as root.
set -eu

if [ "$(id -u)" != 0 ]; then
	echo "install-deps.sh: run as root (it calls apt-get)" >&2
	exit 2
fi

export DEBIAN_FRONTEND=noninteractive

# QEMU 7.2 from bookworm does not re-arm emulated breakpoints on VMRUN, so
# the harness needs QEMU >= 9.1 from bookworm-backports.  Reuse the archive
# address of the machine's existing Debian entry.
add_backports() {
	if grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
		return 0
	fi
	uri=$(sed -n 's/^URIs:[[:space:]]*\(.*debian\/*\)$/\1/p' \
		/etc/apt/sources.list.d/*.sources 2>/dev/null | grep -v security | head -n 1)
	if [ -z "$uri" ]; then
		uri=$(sed -n 's/^deb[[:space:]]\+\(http[^[:space:]]*debian\/*\)[[:space:]].*bookworm.*/\1/p' \
			/etc/apt/sources.list 2>/dev/null | grep -v security | head -n 1)
	fi
	[ -n "$uri" ] || uri=http://deb.debian.org/debian
	cat > /etc/apt/sources.list.d/csan-vmm-backports.sources <<EOS
Types: deb
URIs: $uri
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOS
}

add_backports
apt-get update -q

# Build: compilers, Autotools, libelf/libdw, the decoder, seccomp.
apt-get install -y -q --no-install-recommends \
	gcc clang make autoconf automake pkg-config libc6-dev \
	libelf-dev libdw-dev elfutils zlib1g-dev \
	libcapstone-dev libseccomp-dev \
	python3 gnuplot-nox xz-utils

# Tests: the suite's awk checks must mean the same under each awk Debian
# has (tests/README.md runs it under both).
apt-get install -y -q --no-install-recommends gawk mawk

# Harness: QEMU >= 9.1 (backports), a static busybox and cpio for the
# emulated host's initramfs.  The cloud kernel is fetched by the harness
# itself with apt-get download (unpacked, never installed).
apt-get install -y -q --no-install-recommends \
	busybox-static cpio

# Linux test kernels (tools/linux/build-vmlinux.sh): Kbuild's tools, and
# depmod (kmod) for the workload kernel's modules.dep.  The source itself
# (linux-source-6.1) is fetched by that script with apt-get download
# (unpacked, never installed).
apt-get install -y -q --no-install-recommends \
	flex bison bc perl libssl-dev kmod
apt-get install -y -q --no-install-recommends -t bookworm-backports \
	qemu-system-x86 ipxe-qemu qemu-system-data
