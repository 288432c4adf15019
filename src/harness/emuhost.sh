#!/bin/bash
# emuhost: run a command as root in an emulated x86 host (QEMU TCG, -cpu EPYC) whose kernel has real kvm-amd.
#
#   emuhost [--cpus N] [--memory MB] [--timeout SECONDS] [--stdin]
#           [--file HOSTPATH[:GUESTPATH]]... [--output GUESTPATH:HOSTPATH]...
#           [--disk IMAGE[,ro]] [--] COMMAND [ARGS...]
#   emuhost --setup    prepare the cache (kernel, modules, base initramfs)
#   emuhost --check    exit 0 if the harness can run here, else say why, 77
#
# Exit status: COMMAND's own; 77 when the harness cannot run here (one line
# on stderr says what is missing); 125 when the emulated host failed (did not
# boot, its kernel panicked or locked up, it fell silent, a serial port of
# COMMAND's output stopped sending, it lost a nested guest's state,
# --timeout expired, bad usage).  A first SIGINT, SIGTERM or SIGHUP is passed on to COMMAND,
# which then has 60 s to finish; a second one stops QEMU at once.  See
# docs/harness.md.  csan-vmm --host=emulated runs itself through this script
# (installed in csan-vmm's libexec directory).
set -u

here=$(cd "$(dirname "$0")" && pwd)
# Installed and in a build tree: emuhost-init beside us; in the source tree
# (src/harness/emuhost.sh): emuhost-init.sh.
init_script=$here/emuhost-init
[ -r "$init_script" ] || init_script=$here/emuhost-init.sh
QEMU=${QEMU_SYSTEM:-qemu-system-x86_64}
BUSYBOX=/bin/busybox
KERNEL_META=linux-image-cloud-amd64   # Debian's cloud kernel: small, has kvm-amd
TOP_MODULE=kvm-amd                    # loaded with its dependencies (kvm, irqbypass)
# --disk: QEMU's virtio-blk-pci drive; the cloud kernel has its drivers as
# modules, kept apart (disk-modules/) and loaded only for a run with a disk.
DISK_MODULES="virtio_pci virtio_blk"
DRIVE_LETTERS=abcdefghijklmnop
# no_timer_check: under a loaded machine TCG can miss the kernel's IO-APIC
# timer check window and panic ("IO-APIC + timer doesn't work!"), as VMs do.
CMDLINE="console=ttyS0 quiet panic=-1 no_timer_check"
# What to install, named for users of an installed csan-vmm as well as for
# a source tree (whose tools/install-deps.sh installs all of it).
FIX="(in a csan-vmm source tree: sh tools/install-deps.sh)"
QEMU_FIX="install QEMU >= 9.1: add Debian's bookworm-backports suite, then apt-get install -t bookworm-backports qemu-system-x86 $FIX"

say() { echo "emuhost: $*" >&2; }
skip() { say "$*"; exit 77; }
die() { say "$*"; exit 125; }
note() { [ "$report" = 1 ] && echo "emuhost: $*"; return 0; }
# Set-up steps that take seconds: always said (stdout for --setup, stderr
# on a first run, so the user sees why the first start pauses).
progress() { if [ "$report" = 1 ]; then echo "emuhost: $*"; else say "$*"; fi; }
report=0

usage() {
	cat >&2 <<'EOF'
usage: emuhost [--cpus N] [--memory MB] [--timeout SECONDS] [--stdin]
               [--file HOSTPATH[:GUESTPATH]]... [--output GUESTPATH:HOSTPATH]...
               [--disk IMAGE[,ro]] [--] COMMAND [ARGS...]
       emuhost --setup | --check
EOF
	exit 125
}

# --- what this machine must have ----------------------------------------

check_tools() {
	local t
	for t in cpio flock timeout mkfifo ldd; do
		command -v "$t" >/dev/null 2>&1 ||
			skip "'$t' not found; apt-get install cpio coreutils util-linux libc-bin $FIX"
	done
	[ -x "$BUSYBOX" ] || skip "$BUSYBOX not found; apt-get install busybox-static $FIX"
	# ldd fails on a static binary; a dynamic busybox would not run alone.
	if ldd "$BUSYBOX" >/dev/null 2>&1; then
		skip "$BUSYBOX is dynamically linked; apt-get install busybox-static $FIX"
	fi
}

# QEMU older than 9.1 does not re-arm emulated breakpoints on VMRUN, so
# debug registers would silently do nothing in the emulated host.
check_qemu() {
	command -v "$QEMU" >/dev/null 2>&1 ||
		skip "$QEMU not found; $QEMU_FIX"
	qemu_full_version=$("$QEMU" --version 2>/dev/null |
		sed -n '1s/.*version \([0-9][0-9.]*\).*/\1/p')
	qemu_version=$(sed -n 's/^\([0-9]*\.[0-9]*\).*/\1/p' <<<"$qemu_full_version")
	local major=${qemu_version%%.*} minor=${qemu_version#*.}
	if [ -z "$qemu_version" ] || [ "$major" -lt 9 ] ||
		{ [ "$major" = 9 ] && [ "$minor" -lt 1 ]; }; then
		skip "$QEMU is version ${qemu_version:-unknown}, need >= 9.1 (older ones do not re-arm debug registers for nested guests); $QEMU_FIX"
	fi
}

# --- cache: <cache>/<kernel version>/{vmlinuz,modules/,base.cpio}, current -> one of them

ready() { [ -r "$cache/current/base.cpio" ] && [ -r "$cache/current/vmlinuz" ]; }

# The virtio drivers for --disk, in a cache set up since they were added
# (fetched on the first run that asks for a disk).
has_disk_modules() {
	[ -r "$cache/current/disk-modules/order" ] && cpio_has_disk_modules "$cache/current/base.cpio"
}

# Ready and not older than busybox, with the disk drivers when a disk is
# wanted; a read-only cache is taken as it is.
usable() {
	ready && { { ! [ "$BUSYBOX" -nt "$cache/current/base.cpio" ] &&
		{ [ "$want_disk" = 0 ] || has_disk_modules; }; } || ! [ -w "$cache" ]; }
}

pick_cache() {
	local primary=${CSAN_HARNESS_CACHE:-/var/cache/csan-vmm/harness}
	local fallback=${HOME:-/nonexistent}/.cache/csan-vmm/harness c
	# A populated cache is usable even read-only (e.g. set up by root).
	for c in "$primary" "$fallback"; do
		cache=$c
		ready && return 0
	done
	for c in "$primary" "$fallback"; do
		if mkdir -p "$c" 2>/dev/null && [ -w "$c" ]; then
			cache=$c
			return 0
		fi
	done
	skip "no writable cache directory ($primary, $fallback); set CSAN_HARNESS_CACHE"
}

# Serialise cache changes between concurrent emuhost runs (make -j2).
lock_cache() {
	exec 9>>"$cache/lock" || skip "cannot create $cache/lock; set CSAN_HARNESS_CACHE to a writable directory"
	flock -w 900 9 || die "waited 900 s for another emuhost to finish with $cache/lock"
}

# The versioned package the meta package points at, e.g. linux-image-6.1.0-57-cloud-amd64.
kernel_package() {
	apt-cache depends "$KERNEL_META" 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[^ <>]*\)$/\1/p' | head -n 1
}

# Print a module's dependencies (from its .modinfo "depends=" string, which
# is what modinfo reads; kmod's modinfo is not installed here).
module_depends() {
	tr '\0' '\n' <"$1" | sed -n 's/^depends=//p' | head -n 1 | tr ',' ' '
}

# add_module NAME MODDIR OUTDIR: copy NAME and, first, its dependencies.
add_module() {
	local name=$1 moddir=$2 out=$3 path dep top=${top:-$1}
	case " $added " in *" $name "*) return 0 ;; esac
	path=$(find "$moddir" \( -name "${name//_/-}.ko" -o -name "${name//-/_}.ko" \
		-o -name "${name//_/-}.ko.xz" -o -name "${name//-/_}.ko.xz" \) | head -n 1)
	[ -n "$path" ] || skip "the cloud kernel has no module $name (needed for $top)"
	if [ "${path%.xz}" != "$path" ]; then   # newer kernels compress modules
		xz -dc "$path" >"$out/$(basename "${path%.xz}")" || die "cannot decompress $path"
		path=$out/$(basename "${path%.xz}")
	else
		cp "$path" "$out/" || die "cannot copy $path"
	fi
	for dep in $(module_depends "$path"); do
		add_module "$dep" "$moddir" "$out"
	done
	added="$added $name"
	basename "$path" >>"$out/order"
}

# unpack_kernel PACKAGE WORK: download PACKAGE and unpack it into WORK/x;
# sets deb to the package file.
unpack_kernel() {
	local pkg=$1 work=$2
	progress "first-time set-up: fetching Debian's cloud kernel $pkg (about 30 MB) with apt-get download into $cache"
	if ! (cd "$work" && timeout 600 apt-get download "$pkg") >"$work/apt.log" 2>&1; then
		tail -n 3 "$work/apt.log" >&2
		rm -rf "$work"
		skip "apt-get download $pkg failed (apt needs Debian's archive: check /etc/apt/sources.list and the network) $FIX"
	fi
	deb=$(echo "$work"/*.deb)
	dpkg-deb -x "$deb" "$work/x" || die "dpkg-deb -x $deb failed"
}

# add_disk_modules MODDIR OUTDIR: the virtio drivers, with their own order file.
add_disk_modules() {
	local m
	mkdir -p "$2"
	added=""
	for m in $DISK_MODULES; do
		top=$m add_module "$m" "$1" "$2"
	done
}

# fetch_kernel PACKAGE DIR: download and unpack the kernel into DIR.
fetch_kernel() {
	local pkg=$1 dir=$2 kver=${1#linux-image-} work deb
	work=$(mktemp -d "$cache/.work.XXXXXX") || die "cannot create a directory in $cache"
	unpack_kernel "$pkg" "$work"
	mkdir -p "$work/out/modules"
	cp "$work/x/boot/vmlinuz-$kver" "$work/out/vmlinuz" ||
		skip "$pkg has no /boot/vmlinuz-$kver"
	added=""
	add_module "$TOP_MODULE" "$work/x/lib/modules/$kver" "$work/out/modules"
	add_disk_modules "$work/x/lib/modules/$kver" "$work/out/disk-modules"
	echo "$pkg $(dpkg-deb -f "$deb" Version)" >"$work/out/package"
	rm -rf "$dir"
	mv -T "$work/out" "$dir" || die "cannot move the unpacked kernel to $dir"
	rm -rf "$work"
	progress "unpacked $(cat "$dir/package"): vmlinuz and modules $(tr '\n' ' ' <"$dir/modules/order")$(tr '\n' ' ' <"$dir/disk-modules/order")into $dir"
}

# fetch_disk_modules PACKAGE DIR: a kernel unpacked before --disk existed
# gets the virtio drivers beside it; runs using DIR go on undisturbed.
fetch_disk_modules() {
	local pkg=$1 dir=$2 kver=${1#linux-image-} work deb
	work=$(mktemp -d "$cache/.work.XXXXXX") || die "cannot create a directory in $cache"
	unpack_kernel "$pkg" "$work"
	add_disk_modules "$work/x/lib/modules/$kver" "$work/disk-modules"
	rm -rf "$dir/disk-modules"
	mv -T "$work/disk-modules" "$dir/disk-modules" || die "cannot move the disk drivers to $dir"
	rm -rf "$work"
	progress "added the disk drivers $(tr '\n' ' ' <"$dir/disk-modules/order")to $dir"
}

# cpio_has_disk_modules CPIO: the base initramfs carries the disk drivers.
cpio_has_disk_modules() {
	cpio -it --quiet <"$1" 2>/dev/null | grep -Eqx '(\./)?lib/modules/disk/order'
}

# build_base DIR: busybox + DIR's modules as an uncompressed cpio (the
# kernel unpacks it faster than it would decompress one).
build_base() {
	local dir=$1 stage a
	stage=$(mktemp -d "$cache/.work.XXXXXX") || die "cannot create a directory in $cache"
	progress "building the emulated host's base initramfs (busybox, the kvm and virtio modules)"
	chmod 755 "$stage"
	mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,csan,root,etc,lib/modules/disk}
	chmod 1777 "$stage/tmp"
	cp "$BUSYBOX" "$stage/bin/busybox" || die "cannot copy $BUSYBOX"
	for a in $("$BUSYBOX" --list-full); do
		[ -e "$stage/$a" ] || ln -s /bin/busybox "$stage/$a"
	done
	cp "$dir"/modules/* "$stage/lib/modules/" || die "cannot copy modules from $dir"
	if [ -d "$dir/disk-modules" ]; then
		cp "$dir"/disk-modules/* "$stage/lib/modules/disk/" ||
			die "cannot copy the disk drivers from $dir"
	fi
	(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort |
		cpio -o -H newc -R 0:0 --quiet) >"$dir/base.cpio.tmp" ||
		die "cpio failed building $dir/base.cpio"
	mv "$dir/base.cpio.tmp" "$dir/base.cpio"
	rm -rf "$stage"
	progress "built base initramfs $dir/base.cpio ($(($(stat -c %s "$dir/base.cpio") / 1024)) KiB: busybox, modules)"
}

# setup: make $cache/current usable; with report=1 (--setup) also look
# for a newer cloud kernel and say what was done.
setup() {
	lock_cache
	setup_locked
	exec 9>&-   # unlock; QEMU must not inherit the lock either
}

setup_locked() {
	local pkg dir
	rm -rf "$cache"/.work.*   # left by an interrupted setup (we hold the lock)
	if [ "$report" = 0 ] && usable; then
		return 0   # another run finished the job while we waited
	fi
	pkg=$(kernel_package)
	if [ -z "$pkg" ]; then
		if ready; then
			note "apt knows no $KERNEL_META; keeping $(cat "$cache/current/package")"
			pkg=$(cut -d' ' -f1 "$cache/current/package")
		else
			skip "apt knows no $KERNEL_META (Debian's cloud kernel, fetched with apt-get download); run apt-get update $FIX"
		fi
	fi
	dir=$cache/${pkg#linux-image-}
	if [ -r "$dir/vmlinuz" ] && [ -r "$dir/modules/order" ]; then
		note "kernel already unpacked: $(cat "$dir/package") in $dir"
		if ! [ -r "$dir/disk-modules/order" ] && { [ "$want_disk" = 1 ] || [ "$report" = 1 ]; }; then
			fetch_disk_modules "$pkg" "$dir"
		fi
	else
		fetch_kernel "$pkg" "$dir"
	fi
	if [ -r "$dir/base.cpio" ] && ! [ "$BUSYBOX" -nt "$dir/base.cpio" ] &&
		! { [ -r "$dir/disk-modules/order" ] && ! cpio_has_disk_modules "$dir/base.cpio"; }; then
		note "base initramfs up to date: $dir/base.cpio"
	else
		build_base "$dir"
	fi
	ln -sfn "$(basename "$dir")" "$cache/current.tmp" &&
		mv -T "$cache/current.tmp" "$cache/current" || die "cannot update $cache/current"
	note "ready: cache $cache, kernel $(cat "$dir/package")"
}

# --- one run ----------------------------------------------------------------

is_elf() {
	local magic
	LC_ALL=C read -r -n 4 magic <"$1" 2>/dev/null
	[ "$magic" = $'\177ELF' ]
}

# carry_libs FILE: put FILE's shared libraries and dynamic loader into the
# guest at the paths ldd reports, so FILE runs there as it does here.
carry_libs() {
	local f=$1 out line lib
	out=$(LC_ALL=C ldd "$f" 2>&1) || return 0   # static, or not for this machine
	if grep -q 'not found' <<<"$out"; then
		die "--file $f: its libraries are missing here: $(grep 'not found' <<<"$out" | tr -s '\t\n' '  ')"
	fi
	while read -r line; do
		case $line in
		*'=> /'*) lib=${line#*=> } ;;   # libc.so.6 => /lib/.../libc.so.6 (0x...)
		/*) lib=$line ;;                # /lib64/ld-linux-x86-64.so.2 (0x...)
		*) continue ;;                  # linux-vdso.so.1 (0x...)
		esac
		lib=${lib% (*}
		[ -e "$stage$lib" ] && continue
		mkdir -p "$stage$(dirname "$lib")" && cp -L "$lib" "$stage$lib" ||
			die "--file $f: cannot copy its library $lib"
	done <<<"$out"
}

# carry SPEC: SPEC is HOSTPATH[:GUESTPATH]; GUESTPATH defaults to
# /csan/<basename>, a relative one is under /csan, one ending in / is a dir.
carry() {
	local spec=$1 host=$1 guest=""
	if [ ! -e "$spec" ] && [[ $spec == *:* ]]; then
		host=${spec%:*}
		guest=${spec##*:}
	fi
	[ -e "$host" ] || die "--file $spec: $host does not exist"
	case $guest in
	"") guest=/csan/$(basename "$host") ;;
	*/) guest=$guest$(basename "$host") ;;
	esac
	case $guest in /*) ;; *) guest=/csan/$guest ;; esac
	mkdir -p "$stage$(dirname "$guest")" && cp -RH -- "$host" "$stage$guest" ||
		die "--file $spec: cannot copy $host"
	if [ -f "$host" ] && is_elf "$host"; then
		carry_libs "$host"
	fi
}

# disk_drive IMAGE[,ro]: QEMU's -drive for it, appended to drive_args.
# The user's file itself, raw, so the guest's writes land in it; QEMU
# writes back what the emulated host's kernel flushed when it exits.
disk_drive() {
	local spec=$1 path=$1 ro=off
	case $spec in *,ro) path=${spec%,ro} ro=on ;; esac
	[ -f "$path" ] || [ -b "$path" ] || die "--disk $spec: $path is not a file or a block device"
	# QEMU's option syntax doubles a comma inside a value.
	drive_args+=(-drive "file=${path//,/,,},format=raw,if=virtio,readonly=$ro,cache=writeback")
}

# Release the fifo readers: opening a fifo read-write never blocks and
# counts as a writer, so a reader still waiting in open() (QEMU never
# opened the fifo) is let go, and once closed every reader sees end of file.
release_readers() {
	local f p n alive
	# A copier that had not yet reached its open() when QEMU went away (a
	# QEMU that fails at once, on a loaded machine) would wait there for a
	# writer for ever, and so would we: open each fifo for a moment until
	# every copier has seen its end, for up to 10 s, then stop the rest.
	# (Seen as a run that printed nothing and was killed after 300 s, in
	# emulated-statuses.sh's QEMU-that-fails case.)
	for n in $(seq 100); do
		for f in "$tmp/io.out" "$tmp/err" "$tmp/ctl.out"; do
			[ -p "$f" ] && { exec 6<>"$f"; exec 6>&-; }
		done
		alive=0
		for p in "${cat_pids[@]}"; do
			kill -0 "$p" 2>/dev/null && alive=1
		done
		[ "$alive" = 0 ] && break
		[ "$n" = 100 ] && kill "${cat_pids[@]}" 2>/dev/null
		sleep 0.1
	done
	[ ${#cat_pids[@]} -gt 0 ] && wait "${cat_pids[@]}" 2>/dev/null
	cat_pids=()
	[ -n "$stdin_pid" ] && kill "$stdin_pid" 2>/dev/null
	stdin_pid=""
}

cleanup() {
	if [ -n "$qemu_pid" ]; then
		kill -TERM "$qemu_pid" 2>/dev/null
		wait "$qemu_pid" 2>/dev/null
		qemu_pid=""
	fi
	[ -n "$grace_pid" ] && kill "$grace_pid" 2>/dev/null
	grace_pid=""
	[ -n "$watcher_pid" ] && kill "$watcher_pid" 2>/dev/null
	watcher_pid=""
	[ -n "$tmp" ] && release_readers
	[ -n "$tmp" ] && rm -rf "$tmp"
	tmp=""
}

# shellcheck disable=SC2317 # called from traps
on_signal() {
	say "interrupted by SIG$1; stopping QEMU"
	cleanup
	case $1 in INT) exit 130 ;; HUP) exit 129 ;; *) exit 143 ;; esac
}

# A first signal while COMMAND runs is passed on to it (through the control
# port; the init script signals it), so it can end in its own orderly way -
# csan-vmm prints its summary; QEMU is stopped if it has not finished 60 s
# later, or at a second signal.
# shellcheck disable=SC2317 # called from traps
forward_signal() {
	if [ -n "$forwarded" ] || [ -z "$qemu_pid" ] || ! [ -p "$tmp/ctl.in" ]; then
		on_signal "$1"
	fi
	forwarded=$1
	echo "signal $1" >"$tmp/ctl.in"
	(sleep 60 && kill -TERM "$qemu_pid") 2>/dev/null &
	grace_pid=$!
}

# The emulated host's own kernel can lock up under TCG: a CPU stuck with
# preemption off, its watchdog saying "soft lockup - CPU#1 stuck for 205s!"
# every half minute while COMMAND makes no progress (seen in a whole
# `make check`: the KCSAN KUnit run stalled at a case for 13 minutes).
# The longest stall the console reports, in seconds; 0 for none.
console_lockup_s() {
	sed -n 's/.*soft lockup - CPU#[0-9]* stuck for \([0-9][0-9]*\)s!.*/\1/p' "$1" 2>/dev/null |
		sort -n | tail -n 1 | grep . || echo 0
}

# The init script says "stall ttyS<N> <seconds>" every 5 s while a serial
# port of COMMAND's output has output waiting and its UART has sent
# nothing for that long (a transmit interrupt lost: docs/harness.md).  A
# port waits as well when whoever reads our stdout or stderr does not (a
# pager, a full pipe): then our copier of that port is stuck writing, and
# QEMU's UART waits for it.  So a stall is the emulated host's fault only
# once it is $stall_s s long and has gone on for 10 s more of the init
# script's count while our copier sat waiting to read (a reader that
# starts reading again leaves the last line a few seconds stale, then the
# UART sends and the lines stop).  Sets stall_port and stall_s_seen then;
# stall_reading_from carries the count at which the copier was first seen
# waiting to read.
port_stalled() {
	local line port secs pid
	line=$(grep '^stall ttyS[12] ' "$tmp/ctl" 2>/dev/null | tail -n 1)
	[ -n "$line" ] || return 1
	read -r _ port secs <<<"$line"
	pid=${cat_pids[$((${port#ttyS} - 1))]}
	case $(cat "/proc/$pid/wchan" 2>/dev/null) in
	*pipe_read* | *fifo_open*) ;;
	*) stall_reading_from=""; return 1 ;;
	esac
	[ -n "$stall_reading_from" ] || stall_reading_from=$secs
	[ "$secs" -ge "$stall_s" ] && [ "$secs" -ge $((stall_reading_from + 10)) ] || return 1
	stall_port=$port stall_s_seen=$secs
}

# In the background: stop QEMU once a CPU has been stuck for $lockup_s
# seconds, or once its console (where the init script says it is alive
# every 5 s) has been silent for $silent_s seconds, and leave a note for
# the exit path.  Before the init script first speaks, the kernel boots
# quiet and the console may stay silent for some seconds (more than 5 on
# a loaded machine, tests/host/emuhost-silent.sh): far below the limit.
watch_host() {
	local stuck size last_size=-1 quiet=0 stall_reading_from="" stall_port stall_s_seen
	while sleep 1; do
		stuck=$(console_lockup_s "$tmp/console")
		if [ "$stuck" -ge "$lockup_s" ]; then
			echo "$stuck" >"$tmp/lockup"
			kill -TERM "$1" 2>/dev/null
			return
		fi
		if port_stalled; then
			echo "$stall_port $stall_s_seen" >"$tmp/stalled"
			kill -TERM "$1" 2>/dev/null
			return
		fi
		size=$(stat -c %s "$tmp/console" 2>/dev/null || echo 0)
		if [ "$size" != "$last_size" ]; then
			last_size=$size quiet=0
			continue
		fi
		quiet=$((quiet + 1))
		if [ "$quiet" -ge "$silent_s" ]; then
			echo "$quiet" >"$tmp/silent"
			kill -TERM "$1" 2>/dev/null
			return
		fi
	done
}

# Show why the emulated host failed, from QEMU's and the kernel's logs.
explain_failure() {
	local log oops='Kernel panic|BUG:|Oops|general protection|WARNING:'
	log=$(grep -v -e "TCG doesn't support requested feature" -e 'terminating on signal' \
		"$tmp/qemu.log" 2>/dev/null)
	[ -n "$log" ] && say "QEMU said: $log"
	if grep -q 'Kernel panic' "$tmp/console" 2>/dev/null; then
		say "the emulated host's kernel panicked: $(grep -m 1 'Kernel panic' "$tmp/console")"
	fi
	# The start of a kernel report (what and where) tells more than its end.
	if grep -Eq "$oops" "$tmp/console" 2>/dev/null; then
		say "its console, from the first kernel report:"
		sed -En "/$oops/,\$p" "$tmp/console" | head -n 25 | sed 's/^/  | /' >&2
	elif grep -qv '^emuhost-alive' "$tmp/console" 2>/dev/null; then
		say "last lines of its console:"
		grep -v '^emuhost-alive' "$tmp/console" | tail -n 15 | sed 's/^/  | /' >&2
	else
		[ -n "$log" ] || say "its kernel printed nothing (did not start; is --memory $memory MB enough?)"
		return
	fi
	[ -n "${CSAN_HARNESS_CONSOLE:-}" ] || say "(set CSAN_HARNESS_CONSOLE=FILE to keep the whole console log)"
}

# lost_state_end WHAT TRACED: the run ends as the emulated host's fault
# (125), whatever the command's $status, in the words the tests' retry
# rule knows (tests/lib.sh, nested_state_lost): WHAT its kvm saw, TRACED
# the traced exit that showed it.
lost_state_end() {
	local traced=$2
	[ -z "$status" ] || traced="$traced; the command's status $status is not its own"
	say "the emulated host lost a nested guest's state while running '${command[*]}': $1 ($traced)"
	say "that is the emulated host's fault, not the guest's (docs/harness.md): run again"
	bring_outputs
	cleanup
	exit 125
}

# lost_face_end WORD WHAT [CUT]: when the control port said "WORD ..."
# (emuhost-init's watch_lost_state, or one of its entry_fault_said
# faces), the run ends as lost_state_end WHAT, with the first such line
# as what was traced, less what the sed expression CUT takes off.
lost_face_end() {
	grep -q "^$1 " "$tmp/ctl" 2>/dev/null || return 0
	lost_state_end "$2" "$(sed -n "s/^$1 //p" "$tmp/ctl" | head -n 1 | tr -d '\r' | sed "${3:-}")"
}

# Each --output comes back on the control port after COMMAND, base64
# between "file N" and "end N" lines (or "nofile N": COMMAND did not write
# it, and the host file is left alone).
bring_outputs() {
	local i=0 spec host
	for spec in "${outputs[@]}"; do
		host=${spec#*:}
		if grep -qx "file $i" "$tmp/ctl"; then
			sed -n "/^file $i\$/,/^end $i\$/{/^file $i\$/d;/^end $i\$/d;p}" "$tmp/ctl" |
				base64 -d >"$host" || say "--output $spec: cannot write $host"
		elif grep -qx "nofile $i" "$tmp/ctl"; then
			say "--output $spec: '${command[0]}' did not write ${spec%%:*}"
		else
			say "--output $spec: lost on the way back (control port: $(tr '\n' '|' <"$tmp/ctl" | head -c 300))"
		fi
		i=$((i + 1))
	done
}

run_command() {
	local f a status started spec i port secs what lost
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/emuhost.XXXXXX") || die "cannot create a temporary directory"
	stage=$tmp/stage
	mkdir -p "$stage/.emuhost" "$stage/csan"
	chmod 755 "$stage"
	cp "$init_script" "$stage/init" && chmod 755 "$stage/init" ||
		die "cannot copy $init_script"
	# The command line, single-quoted for the guest's sh.
	{
		printf 'set --'
		for a in "${command[@]}"; do printf " '%s'" "${a//\'/\'\\\'\'}"; done
		printf '\n'
	} >"$stage/.emuhost/args"
	i=0
	for spec in "${outputs[@]}"; do
		printf '%s\n' "${spec%%:*}" >>"$stage/.emuhost/outputs"
		i=$((i + 1))
	done
	[ "$stdin" = 1 ] && : >"$stage/.emuhost/stdin"
	[ -z "$lost_state_range" ] || echo "$lost_state_range" >"$stage/.emuhost/lost-state-range"
	# Disk i is QEMU's i-th virtio drive: /dev/vda, vdb... in the emulated host.
	drive_args=()
	i=0
	for spec in "${disks[@]}"; do
		disk_drive "$spec"
		echo "/dev/vd${DRIVE_LETTERS:i:1}" >>"$stage/.emuhost/disks"
		i=$((i + 1))
	done
	for f in "${files[@]}"; do carry "$f"; done

	# Payload archive after the cached base one: the kernel unpacks both.
	(cd "$stage" && find . -mindepth 1 | cpio -o -H newc -R 0:0 --quiet) >"$tmp/payload.cpio" ||
		die "cpio failed building the payload"
	cat "$cache/current/base.cpio" "$tmp/payload.cpio" >"$tmp/initrd" ||
		die "cannot write $tmp/initrd"
	rm -rf "$stage"

	# COMMAND's stdin and stdout on ttyS1 and its stderr on ttyS2, control
	# both ways on ttyS3: fifos (QEMU's pipe chardev opens NAME.in and
	# NAME.out), copied by cat as they come.  The copiers ignore SIGINT: a
	# Ctrl-C on the terminal reaches them too, and output must not be cut
	# while COMMAND finishes.  (QEMU is safe: timeout runs it in a process
	# group of its own.)
	mkfifo "$tmp/io.in" "$tmp/io.out" "$tmp/err" "$tmp/ctl.in" "$tmp/ctl.out" ||
		die "mkfifo failed in $tmp"
	(trap '' INT && exec cat "$tmp/io.out") &
	cat_pids=($!)
	(trap '' INT && exec cat "$tmp/err" >&2) &
	cat_pids+=($!)
	(trap '' INT && exec cat "$tmp/ctl.out" >"$tmp/ctl") &
	cat_pids+=($!)
	# Input sent before the command's tty is open would be dropped by the
	# emulated UART: start copying once the init script says "started".
	# (A background job's stdin would be /dev/null: hand ours over as fd 7.)
	if [ "$stdin" = 1 ]; then
		exec 7<&0
		(
			trap '' INT
			until grep -qx started "$tmp/ctl" 2>/dev/null; do sleep 0.1; done
			exec cat <&7 >"$tmp/io.in"
		) &
		exec 7<&-
		stdin_pid=$!
	fi

	# Each UART on an IRQ line of its own.  A PC's four default to two
	# shared edge-triggered lines (ttyS1 with ttyS3, ttyS0 with ttyS2),
	# where one UART lowering the line can swallow the other's pending
	# transmit interrupt, and Linux's 8250 driver then waits for it for
	# ever: the likeliest cause of COMMAND's stdout arriving empty while
	# its stderr and status came (docs/harness.md, "Known faults").  5 and
	# 7 are free on QEMU's PC; its ACPI tables tell Linux the lines.
	timeout -k 5 "$timeout" "$QEMU" \
		-accel tcg,thread=multi -smp "$cpus" -m "$memory" -cpu EPYC \
		-nodefaults -no-user-config -display none -no-reboot \
		-kernel "$cache/current/vmlinuz" -initrd "$tmp/initrd" -append "$CMDLINE" \
		"${drive_args[@]}" \
		-chardev "pipe,id=io,path=$tmp/io" -chardev "pipe,id=ctl,path=$tmp/ctl" \
		-chardev "file,id=console,path=$tmp/console" -chardev "file,id=err,path=$tmp/err" \
		-device isa-serial,index=0,irq=4,chardev=console \
		-device isa-serial,index=1,irq=3,chardev=io \
		-device isa-serial,index=2,irq=5,chardev=err \
		-device isa-serial,index=3,irq=7,chardev=ctl \
		</dev/null >"$tmp/qemu.log" 2>&1 &
	qemu_pid=$!
	# Its sleeps must not hold COMMAND's output open after the run ends.
	(trap '' INT && watch_host "$qemu_pid") </dev/null >/dev/null 2>&1 &
	watcher_pid=$!
	trap 'forward_signal INT' INT
	trap 'forward_signal TERM' TERM
	trap 'forward_signal HUP' HUP
	# A trapped signal ends `wait` early: wait again for QEMU itself.
	while :; do
		wait "$qemu_pid"
		qemu_rc=$?
		[ -n "$forwarded" ] && kill -0 "$qemu_pid" 2>/dev/null && continue
		break
	done
	qemu_pid=""
	kill "$watcher_pid" 2>/dev/null
	wait "$watcher_pid" 2>/dev/null
	watcher_pid=""
	trap 'on_signal INT' INT
	trap 'on_signal TERM' TERM
	trap 'on_signal HUP' HUP
	release_readers

	[ -n "${CSAN_HARNESS_CONSOLE:-}" ] && cp "$tmp/console" "$CSAN_HARNESS_CONSOLE" 2>/dev/null
	status=$(sed -n 's/^exit \([0-9][0-9]*\)$/\1/p' "$tmp/ctl" 2>/dev/null | tail -n 1)
	# The init script's second copy of the status, on the console.
	[ -n "$status" ] || status=$(tr -d '\r' <"$tmp/console" 2>/dev/null |
		sed -n 's/^\[[ 0-9.]*\] emuhost-status: exit \([0-9][0-9]*\)$/\1/p' | tail -n 1)
	started=$(grep -c '^started$' "$tmp/ctl" 2>/dev/null)
	# What a nested guest did before it shut down (emuhost-init's
	# shutdown_watch): kvm-amd resets a vCPU at a triple fault, so this is
	# the only record of where it was.  Words for the reader; no verdict.
	if grep -q '^shutdown ' "$tmp/ctl" 2>/dev/null; then
		say "a nested guest shut down (triple fault) while running '${command[*]}'; its last exception exits, injected exceptions and the shutdown, as the emulated host's kvm traced them (docs/harness.md):"
		sed -n 's/^shutdown /emuhost:   /p' "$tmp/ctl" | tr -d '\r' >&2
	fi
	# The emulated host's own evidence of its known fault, whatever
	# COMMAND's status: its kvm saw the nested guest exit at an address of
	# its own kvm modules (emuhost-init's watch_lost_state).  The run is
	# not COMMAND's to judge.
	lost_face_end lost-state "its kvm saw the guest exit at an address inside its own kvm modules, where the guest has no code" \
		's/ info1 .*//'
	# Its faces at a world switch (emuhost-init's entry_fault_said): a
	# vCPU shut down fetching the very instruction kvm had just entered it
	# at, on a page it was running on until its exit before, for want of
	# a page present; or delivering an interrupt where kvm woke it from
	# HLT, as it had from the same HLT before.
	lost_face_end lost-fetch "a vCPU triple-faulted on a page fault fetching the first instruction its kvm entered it at, on the page it had been running on until its exit before"
	lost_face_end lost-wake "a vCPU triple-faulted delivering an interrupt right after its HLT, where its kvm had woken it for one before and it ran on"
	if [ -n "$status" ]; then
		bring_outputs
		cleanup
		exit "$status"
	fi
	if [ -n "$forwarded" ]; then
		say "interrupted by SIG$forwarded; '${command[*]}' did not finish within 60 s, QEMU stopped"
		cleanup
		case $forwarded in INT) exit 130 ;; HUP) exit 129 ;; *) exit 143 ;; esac
	fi
	if grep -q '^nokvm ' "$tmp/ctl" 2>/dev/null; then
		reason=$(sed -n 's/^nokvm //p' "$tmp/ctl" | head -n 1 | sed 's/[[:space:]]*$//')
		cleanup
		skip "kvm does not work in the emulated host ($QEMU -cpu EPYC must offer SVM): $reason"
	fi
	# Fallen silent before COMMAND started: nothing of it ran, so boot
	# again, once (the known fault comes and goes: docs/harness.md).
	if [ -s "$tmp/silent" ] && [ "${started:-0}" = 0 ] && [ "$boot_attempt" = 1 ]; then
		say "the emulated host fell silent while booting (nothing on its console for $(cat "$tmp/silent") s); QEMU stopped, booting it again"
		cleanup
		CSAN_HARNESS_BOOT_ATTEMPT=2 exec "$0" "${given_args[@]}"
	fi
	if [ -s "$tmp/silent" ]; then
		if [ "${started:-0}" -gt 0 ]; then
			say "the emulated host fell silent while running '${command[*]}' (nothing on its console for $(cat "$tmp/silent") s); QEMU stopped"
		else
			say "the emulated host fell silent while booting, twice (nothing on its console for $(cat "$tmp/silent") s); QEMU stopped"
			explain_failure
		fi
		say "that is the emulated host's fault, not the guest's (docs/harness.md): run again"
	elif [ -s "$tmp/stalled" ]; then
		read -r port secs <"$tmp/stalled"
		case $port in ttyS1) what=stdout ;; *) what=stderr ;; esac
		say "the emulated host's serial port for '${command[*]}''s $what ($port) stopped sending (output waiting, nothing sent for $secs s); QEMU stopped"
		say "that is the emulated host's fault, not the guest's (docs/harness.md): run again"
	elif [ -s "$tmp/lockup" ]; then
		say "the emulated host's kernel locked up while running '${command[*]}' (a CPU stuck for $(cat "$tmp/lockup") s: $(grep -m 1 'soft lockup' "$tmp/console" | tr -d '\r' | sed 's/^\[[^]]*\] //')); QEMU stopped"
		say "that is the emulated host's fault, not the guest's (docs/harness.md): run again"
	elif [ "$qemu_rc" = 124 ] || [ "$qemu_rc" = 137 ]; then
		if [ "${started:-0}" -gt 0 ]; then
			say "timed out: '${command[*]}' still running after --timeout $timeout s; QEMU killed"
		else
			say "timed out: the emulated host did not finish booting within --timeout $timeout s; QEMU killed"
			explain_failure
		fi
	elif [ "${started:-0}" -gt 0 ]; then
		say "the emulated host stopped while running '${command[*]}' (QEMU status $qemu_rc)"
		explain_failure
	else
		say "the emulated host failed to boot (QEMU status $qemu_rc)"
		explain_failure
	fi
	cleanup
	exit 125
}

# --check: boot once per QEMU version and kernel to prove /dev/kvm works;
# remember success so the many tests calling --check pay nothing.
check() {
	local stamp msg rc
	stamp=$cache/current/verified-qemu-$qemu_full_version
	[ -e "$stamp" ] && return 0
	# Under the lock, so parallel first checks boot once, not once each.
	[ -w "$cache" ] && lock_cache
	[ -e "$stamp" ] && return 0
	say "first use of QEMU $qemu_full_version with this kernel: one trial boot to check kvm-amd (about 10 s)"
	msg=$(9>&- "$0" --timeout 300 -- test -c /dev/kvm 2>&1 >/dev/null)
	rc=$?
	case $rc in
	0) touch "$stamp" 2>/dev/null ;;
	77) skip "${msg#emuhost: }" ;;
	*) die "a trial boot of the emulated host failed (status $rc): $(head -n 1 <<<"${msg#emuhost: }")" ;;
	esac
	exec 9>&-
}

# --- main ---------------------------------------------------------------------

cpus=2 memory=2048 timeout=600 mode=run stdin=0 want_disk=0
files=() outputs=() disks=()
tmp="" qemu_pid="" cat_pids=() stdin_pid="" grace_pid="" watcher_pid="" forwarded=""
# How long a CPU of the emulated host may be stuck before the run stops
# (watch_host); its kernel's first soft-lockup report comes at about 20 s.
lockup_s=${CSAN_HARNESS_LOCKUP_S:-120}
# How long its console may be silent (watch_host); the init script speaks
# every 5 s.
silent_s=${CSAN_HARNESS_SILENT_S:-90}
# How long a serial port of COMMAND's output may hold bytes it does not
# send (watch_host, port_stalled); the init script looks every 5 s.
stall_s=${CSAN_HARNESS_STALL_S:-60}
# Where a nested guest has no code (emuhost-init's watch_lost_state): kvm's
# and kvm_amd's own addresses, or "LOW HIGH" given here (its test points
# the watch at the guest's own code, tests/host/emuhost-lost-state.sh).
lost_state_range=${CSAN_HARNESS_LOST_STATE_RANGE:-}
# A boot that fell silent is tried again once (run_command).
boot_attempt=${CSAN_HARNESS_BOOT_ATTEMPT:-1}
given_args=("$@")
while [ $# -gt 0 ]; do
	case $1 in
	--setup) mode=setup ;;
	--check) mode=check ;;
	--stdin) stdin=1 ;;
	--cpus | --memory | --timeout | --file | --output | --disk)
		[ $# -ge 2 ] || usage
		case $1 in
		--disk)
			# One disk for now: the inner csan-vmm takes one.
			[ ${#disks[@]} = 0 ] || { say "--disk $2: one disk only"; usage; }
			disks+=("$2") want_disk=1 ;;
		--cpus) cpus=$2 ;;
		--memory) memory=$2 ;;
		--timeout) timeout=$2 ;;
		--file) files+=("$2") ;;
		--output)
			[[ $2 == /*:?* ]] || { say "--output $2: give GUESTPATH:HOSTPATH, GUESTPATH absolute"; usage; }
			outputs+=("$2") ;;
		esac
		shift ;;
	--cpus=* | --memory=* | --timeout=* | --file=* | --output=* | --disk=*)
		set -- "${1%%=*}" "${1#*=}" "${@:2}"
		continue ;;
	--) shift; break ;;
	-h | --help) usage ;;
	-*) say "unknown option $1"; usage ;;
	*) break ;;
	esac
	shift
done
for n in "$cpus" "$memory" "$timeout"; do
	[[ $n =~ ^[1-9][0-9]*$ ]] || { say "not a positive number: $n"; usage; }
done
[[ $lockup_s =~ ^[1-9][0-9]*$ ]] ||
	die "CSAN_HARNESS_LOCKUP_S=$lockup_s: give a whole number of seconds (default 120)"
[[ $silent_s =~ ^[1-9][0-9]*$ ]] ||
	die "CSAN_HARNESS_SILENT_S=$silent_s: give a whole number of seconds (default 90)"
[ -z "$lost_state_range" ] || [[ $lost_state_range =~ ^0x[0-9a-f]{1,16}\ 0x[0-9a-f]{1,16}$ ]] ||
	die "CSAN_HARNESS_LOST_STATE_RANGE=$lost_state_range: give two hexadecimal addresses, LOW HIGH (0x...)"
[[ $stall_s =~ ^[1-9][0-9]*$ ]] ||
	die "CSAN_HARNESS_STALL_S=$stall_s: give a whole number of seconds (default 60)"
command=("$@")

check_tools
check_qemu
pick_cache
case $mode in
setup)
	report=1
	setup
	exit 0 ;;
check)
	usable || setup
	check
	echo "emuhost: ok: QEMU $qemu_full_version, $(cat "$cache/current/package"), cache $cache"
	exit 0 ;;
esac
[ ${#command[@]} -gt 0 ] || usage
usable || setup
if [ "$want_disk" = 1 ] && ! has_disk_modules; then
	skip "the harness cache $cache has no virtio drivers for --disk and cannot be written here; run emuhost --setup as its owner, or set CSAN_HARNESS_CACHE to a directory of your own"
fi
trap 'on_signal INT' INT
trap 'on_signal TERM' TERM
trap 'on_signal HUP' HUP
trap cleanup EXIT
run_command
