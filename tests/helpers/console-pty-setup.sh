# console-pty-setup.sh VMM DIR SCRIPT: console-session.sh in pty mode
# inside the emulated host, whose init mounts no devpts: mount it first,
# and use the script(1) binary the test carried in (SCRIPT).
vmm=$1 dir=$2
SCRIPT=$3
export SCRIPT
mkdir -p /dev/pts
grep -q ' /dev/pts ' /proc/mounts || mount -t devpts devpts /dev/pts || exit 99
exec sh "$(dirname "$0")/console-session.sh" "$vmm" "$dir" pty
