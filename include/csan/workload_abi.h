/* workload_abi.h: the contract between csan-vmm and its init in the guest (--run). */
#ifndef CSAN_WORKLOAD_ABI_H
#define CSAN_WORKLOAD_ABI_H

/*
 * Shared by the VMM and src/init/csan-vmm-init.c (a static Linux
 * userspace program), C99 only.  Both are built from one tree, so there
 * is no version: a change here changes both sides at once.
 *
 * Where csan-vmm's part of the initramfs lives.  Everything of ours sits
 * below one directory, so a user's --initrd (unpacked first) keeps its own
 * /init, /bin and /lib: the kernel is told rdinit=CSAN_WL_INIT instead.
 */
#define CSAN_WL_DIR	 "/.csan-vmm"
#define CSAN_WL_INIT	 CSAN_WL_DIR "/init"
#define CSAN_WL_CMD_FILE CSAN_WL_DIR "/cmd"    /* --run's CMD, as bytes, no NUL */
#define CSAN_WL_BIN	 CSAN_WL_DIR "/bin"    /* busybox and its applet links */
#define CSAN_WL_BUSYBOX	 CSAN_WL_BIN "/busybox"

/*
 * The status channel.  When CMD has ended, the init writes one 32-bit
 * value to ports CSAN_WL_PORT..+3: CSAN_WL_MAGIC in the high half, CMD's
 * exit status as sh gives it (0-255; 127 not found, 128+N killed by
 * signal N) in the low half.  Either as one `outl` to CSAN_WL_PORT (after
 * ioperm(), which needs CONFIG_X86_IOPL_IOPERM), or as its four bytes
 * little-endian, one `outb` per port in rising order, the last at
 * CSAN_WL_PORT + 3 (what a 4-byte write to /dev/port at offset
 * CSAN_WL_PORT does, for kernels without ioperm; CONFIG_DEVPORT).
 * Console text cannot produce an I/O port write, so a program that
 * prints "exit 0" cannot fake a pass.  0xe8-0xeb is not used by the PC
 * (0xe5 is csan-vmm's KCSAN trap port, 0xed Linux's alternative io_delay
 * port).
 */
#define CSAN_WL_PORT	   0xe8
#define CSAN_WL_PORT_COUNT 4
#define CSAN_WL_MAGIC	   0xc5a70000u
#define CSAN_WL_MAGIC_MASK 0xffff0000u
#define CSAN_WL_STATUS_MAX 255u

#endif /* CSAN_WORKLOAD_ABI_H */
