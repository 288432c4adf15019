#!/bin/sh
# gen-symtest.sh: rebuild tests/watch/symtest.elf and show what test-sym.c
# and test-unwind.c expect from it.
#
# The ELF is checked in so that a new compiler cannot move the offsets the
# tests check.  Run this only after editing symtest.c (from the top of the
# source tree: sh tests/watch/gen-symtest.sh [CC]), then update the
# expected addresses, offsets and lines in tests/watch/test-sym.c and
# tests/watch/test-unwind.c from the listing it prints.
set -eu
cc=${1:-gcc}
dir=tests/watch
test -f "$dir/symtest.c" || { echo "gen-symtest.sh: run from the top of the source tree" >&2; exit 2; }

# Freestanding and at a fixed address like the guest; the source paths are
# recorded relative to the tree so the ELF does not name this machine.
$cc -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -ffreestanding -fno-pic -fno-pie \
	-fno-stack-protector -fcf-protection=none -mno-red-zone \
	-fdebug-prefix-map="$(pwd)"=. -nostdlib -static -no-pie \
	-Wl,--build-id=none -o "$dir/symtest.elf" "$dir/symtest.c"

echo "== symbols"
nm -S --defined-only "$dir/symtest.elf" | grep -i ' t '
echo "== code"
objdump -d --no-show-raw-insn "$dir/symtest.elf"
echo "== inline chains (eu-addr2line -f -i) of every instruction of leaf"
objdump -d --no-show-raw-insn --disassemble=leaf "$dir/symtest.elf" |
	awk '/^ +[0-9a-f]+:/ { sub(":", "", $1); print "0x" $1 }' |
	while read -r a; do
		echo "-- $a"
		eu-addr2line -f -i -C -e "$dir/symtest.elf" "$a"
	done
